package r4c_test

// Every key of every kind, read from the kinds' own tables: its precedence
// at each level, from a map, a file and the environment, and the coded
// error of a value that does not parse or breaks its rule, at each level.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// kindCase drives one kind through text: keys are set in code through the
// kind's table (a zero value through SetZero or Enable) and read back from
// the handle's Config.
type kindCase struct {
	flat     string
	names    []string
	types    map[string]string
	builtin  func(key string) string
	defaults func(key, text string) r4c.Option
	config   func(name, key, text string) r4c.Option
	add      func(b *pipeline.Builder[int], base, key, text string) *pipeline.Builder[int]
	read     func(t *testing.T, reg *r4c.Registry, id, key string) string
	lookup   func(reg *r4c.Registry, id string) error
}

type zeroer interface {
	SetZero(...string)
	Enable()
}

func newCase[C any, H interface{ Config() C }](flat string, tab *policy.Table[C],
	defaults func(func(*C)) r4c.Option, config func(string, func(*C)) r4c.Option,
	add func(*pipeline.Builder[int], func(*C)) *pipeline.Builder[int],
	handle func(*r4c.Registry, string) (H, error), withDefaults func(C) C) kindCase {
	set := func(key, text string) func(*C) {
		return func(c *C) {
			if key == "" || text == "" {
				return // not set at this level
			}
			k := tab.At(tab.Index(key))
			if err := k.Set(c, text); err != nil {
				panic(err) // the samples set in code parse
			}
			if k.IsZero(c) {
				if key == policy.EnabledKeyName {
					any(c).(zeroer).Enable()
				} else {
					any(c).(zeroer).SetZero(key)
				}
			}
		}
	}
	kc := kindCase{flat: flat, names: tab.Names(), types: map[string]string{}}
	for _, k := range tab.Keys() {
		kc.types[k.Name] = k.Type
	}
	kc.builtin = func(key string) string {
		var c C
		d := withDefaults(c)
		return tab.At(tab.Index(key)).Format(&d)
	}
	kc.defaults = func(key, text string) r4c.Option { return defaults(set(key, text)) }
	kc.config = func(name, key, text string) r4c.Option { return config(name, set(key, text)) }
	kc.add = func(b *pipeline.Builder[int], base, key, text string) *pipeline.Builder[int] {
		return add(b, func(c *C) { *tab.BaseConfig(c) = base; set(key, text)(c) })
	}
	kc.read = func(t *testing.T, reg *r4c.Registry, id, key string) string {
		t.Helper()
		h, err := handle(reg, id)
		require.NoError(t, err)
		cfg := h.Config()
		return tab.At(tab.Index(key)).Format(&cfg)
	}
	kc.lookup = func(reg *r4c.Registry, id string) error { _, err := handle(reg, id); return err }
	return kc
}

func allKinds() []kindCase {
	return []kindCase{
		newCase("adaptiveLimit", adaptivelimit.Keys(), r4c.WithAdaptiveLimitDefaults, r4c.WithAdaptiveLimitConfig,
			(*pipeline.Builder[int]).AdaptiveLimit, (*r4c.Registry).AdaptiveLimit, adaptivelimit.Config.WithDefaults),
		newCase("timeout", timeout.Keys(), r4c.WithTimeoutDefaults, r4c.WithTimeoutConfig,
			(*pipeline.Builder[int]).Timeout, (*r4c.Registry).Timeout, timeout.Config.WithDefaults),
		newCase("bulkhead", bulkhead.Keys(), r4c.WithBulkheadDefaults, r4c.WithBulkheadConfig,
			(*pipeline.Builder[int]).Bulkhead, (*r4c.Registry).Bulkhead, bulkhead.Config.WithDefaults),
		newCase("rateLimit", ratelimit.Keys(), r4c.WithRateLimitDefaults, r4c.WithRateLimitConfig,
			(*pipeline.Builder[int]).RateLimit, (*r4c.Registry).RateLimit, ratelimit.Config.WithDefaults),
		newCase("retry", retry.Keys(), r4c.WithRetryDefaults, r4c.WithRetryConfig,
			(*pipeline.Builder[int]).Retry, (*r4c.Registry).Retry, retry.Config.WithDefaults),
		newCase("breaker", breaker.Keys(), r4c.WithBreakerDefaults, r4c.WithBreakerConfig,
			(*pipeline.Builder[int]).Breaker, (*r4c.Registry).Breaker, breaker.Config.WithDefaults),
		newCase("hedge", hedge.Keys(), r4c.WithHedgeDefaults, r4c.WithHedgeConfig,
			(*pipeline.Builder[int]).Hedge, (*r4c.Registry).Hedge, hedge.Config.WithDefaults),
		newCase("fallback", fallback.Keys(), r4c.WithFallbackDefaults, r4c.WithFallbackConfig,
			(*pipeline.Builder[int]).Fallback, (*r4c.Registry).Fallback, fallback.Config.WithDefaults),
	}
}

// sample holds, for one key, six valid values in canonical form (each one
// different from the one before, for the six levels of precedence, a zero
// among them where the key allows one) and a value that parses but breaks
// the key's own rule, with its code ("" when every value that parses is
// valid).
type sample struct {
	ok   [6]string
	bad  string
	code string
}

var (
	enabledSample = sample{ok: [6]string{"false", "true", "false", "true", "false", "true"}}
	ints          = [6]string{"2", "3", "4", "5", "6", "7"}
	seconds       = [6]string{"1s", "2s", "3s", "4s", "5s", "6s"}
	fractions     = [6]string{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6"}
	zeroWaits     = [6]string{"0s", "1s", "0s", "2s", "0s", "3s"} // zero in code over a lower layer
	aboveOne      = sample{ok: ints, bad: "0", code: r4c.CodeBoundBelowOne}
)

var samples = map[string]map[string]sample{
	"adaptiveLimit": {
		"enabled":          enabledSample,
		"algorithm":        {ok: [6]string{"aimd", "vegas", "gradient2", "little", "aimd", "vegas"}},
		"initialLimit":     {ok: [6]string{"11", "12", "13", "14", "15", "16"}, bad: "0", code: r4c.CodeBoundBelowOne},
		"minLimit":         aboveOne,
		"maxLimit":         {ok: [6]string{"31", "32", "33", "34", "35", "36"}, bad: "0", code: r4c.CodeBoundBelowOne},
		"window":           {ok: [6]string{"100ms", "200ms", "300ms", "400ms", "500ms", "600ms"}, bad: "2h", code: r4c.CodeBoundsOrder},
		"minWindowSamples": aboveOne,
		"smoothing":        {ok: fractions, bad: "1.5", code: r4c.CodeOutOfRange},
		"rttTolerance":     {ok: [6]string{"1.1", "1.2", "1.3", "1.4", "1.6", "1.7"}, bad: "0.5", code: r4c.CodeOutOfRange},
		"longWindow":       {ok: [6]string{"100", "200", "300", "400", "500", "700"}, bad: "0", code: r4c.CodeBoundBelowOne},
		"queueSize":        aboveOne,
		"backoffRatio":     {ok: [6]string{"0.5", "0.6", "0.7", "0.8", "0.85", "0.95"}, bad: "1", code: r4c.CodeOutOfRange},
		"probeMultiplier":  aboveOne,
		"maxWait":          {ok: zeroWaits, bad: "-1s", code: r4c.CodeNegativeDuration},
		"lowPriorityShare": {ok: fractions, bad: "50", code: r4c.CodeOutOfRange},
		"latencyCeiling":   {ok: zeroWaits, bad: "-1s", code: r4c.CodeNegativeDuration},
	},
	"timeout": {
		"enabled":     enabledSample,
		"timeout":     {ok: seconds, bad: "0s", code: r4c.CodeNegativeDuration},
		"cooperative": {ok: [6]string{"true", "false", "true", "false", "true", "false"}},
	},
	"bulkhead": {
		"enabled":       enabledSample,
		"maxConcurrent": aboveOne,
		"maxWait":       {ok: zeroWaits, bad: "-1s", code: r4c.CodeNegativeDuration},
	},
	"rateLimit": {
		"enabled": enabledSample,
		"limit":   {ok: [6]string{"10", "20", "30", "40", "50", "60"}, bad: "0", code: r4c.CodeBoundBelowOne},
		"period":  {ok: seconds, bad: "0s", code: r4c.CodeNegativeDuration},
		"burst":   aboveOne,
		"maxWait": {ok: zeroWaits, bad: "-1s", code: r4c.CodeNegativeDuration},
		// The store's keys (issue 14).
		"storeTimeout":  {ok: seconds, bad: "0s", code: r4c.CodeNegativeDuration},
		"fallback":      {ok: [6]string{"open", "closed", "local", "open", "closed", "local"}},
		"fallbackShare": {ok: fractions, bad: "1.5", code: r4c.CodeOutOfRange},
		"probeInterval": {ok: seconds, bad: "0s", code: r4c.CodeNegativeDuration},
		"lease":         aboveOne,
		"leaseFor":      {ok: seconds, bad: "0s", code: r4c.CodeNegativeDuration},
	},
	"retry": {
		"enabled":          enabledSample,
		"maxAttempts":      aboveOne,
		"wait":             {ok: [6]string{"0s", "10ms", "0s", "20ms", "0s", "30ms"}, bad: "-1s", code: r4c.CodeNegativeDuration},
		"multiplier":       {ok: [6]string{"1.5", "2", "2.5", "3", "1", "4"}, bad: "0.5", code: r4c.CodeOutOfRange},
		"maxDelay":         {ok: seconds, bad: "100ms", code: r4c.CodeBoundsOrder},
		"jitter":           {ok: [6]string{"full", "decorrelated", "none", "full", "decorrelated", "none"}},
		"budgetRatio":      {ok: fractions, bad: "2", code: r4c.CodeOutOfRange},
		"budgetWindow":     {ok: seconds, bad: "25h", code: r4c.CodeBoundsOrder},
		"budgetMinRetries": aboveOne,
	},
	"breaker": {
		"enabled":               enabledSample,
		"windowType":            {ok: [6]string{"time-based", "count-based", "time-based", "count-based", "time-based", "count-based"}},
		"windowSize":            aboveOne,
		"windowDuration":        {ok: seconds, bad: "P2D", code: r4c.CodeBoundsOrder},
		"minimumCalls":          aboveOne,
		"failureRateThreshold":  {ok: fractions, bad: "50", code: r4c.CodeOutOfRange},
		"slowCallRateThreshold": {ok: fractions, bad: "50", code: r4c.CodeOutOfRange},
		"slowCallDuration":      {ok: seconds, bad: "0s", code: r4c.CodeNegativeDuration},
		"openFor":               {ok: seconds, bad: "-1s", code: r4c.CodeNegativeDuration},
		"halfOpenCalls":         aboveOne,
		"maxHalfOpenWait":       {ok: zeroWaits, bad: "-1s", code: r4c.CodeNegativeDuration},
	},
	"hedge": {
		"enabled":   enabledSample,
		"delay":     {ok: [6]string{"100ms", "200ms", "300ms", "400ms", "500ms", "600ms"}, bad: "0s", code: r4c.CodeNegativeDuration},
		"maxHedged": {ok: ints, bad: "11", code: r4c.CodeOutOfRange},
	},
	"fallback": {
		"enabled": enabledSample,
	},
}

func TestSamplesCoverEveryKey(t *testing.T) {
	for _, kc := range allKinds() {
		have := samples[kc.flat]
		for _, n := range kc.names {
			assert.Contains(t, have, n, "%s.%s has no sample in keys_test.go", kc.flat, n)
		}
		assert.Len(t, have, len(kc.names), "%s: a sample for a key that does not exist", kc.flat)
	}
}

func TestEveryKeyPrecedence(t *testing.T) {
	for _, kc := range allKinds() {
		for _, key := range kc.names {
			s := samples[kc.flat][key]
			t.Run(kc.flat+"."+key, func(t *testing.T) {
				flat := func(scope string) string { return scope + "." + kc.flat + "." + key }
				props := func(k, v string) r4c.Option { return r4c.WithProperties(map[string]string{k: v}) }
				var opts []r4c.Option
				base, builderText := "", ""
				check := func(level, want string) {
					t.Helper()
					reg, err := r4c.NewRegistry(opts...)
					require.NoError(t, err, level)
					_, err = kc.add(pipeline.NewBuilder[int](reg, "p"), base, key, builderText).Build()
					require.NoError(t, err, level)
					assert.Equal(t, want, kc.read(t, reg, "p", key), level)
				}
				check("built-in", kc.builtin(key))
				opts = append(opts, kc.defaults(key, s.ok[0]))
				check("defaults in code", s.ok[0])
				// An external value wins over code at its level, whatever
				// the order of the options.
				opts = append([]r4c.Option{props(flat("defaults"), s.ok[1])}, opts...)
				check("external defaults over code defaults", s.ok[1])
				base = "b"
				opts = append(opts, kc.config("b", key, s.ok[2]))
				check("named configuration over the defaults", s.ok[2])
				opts = append([]r4c.Option{props("configs.b."+kc.flat+"."+key, s.ok[3])}, opts...)
				check("external named configuration over code", s.ok[3])
				builderText = s.ok[4]
				check("builder over the named configuration", s.ok[4])
				withInstance := append(opts[:len(opts):len(opts)], props("instances.p."+kc.flat+"."+key, s.ok[5]))
				opts, saved := withInstance, opts
				check("external instance over the builder", s.ok[5])

				// The same instance value from a file and from the
				// environment.
				path := filepath.Join(t.TempDir(), "r4c.properties")
				require.NoError(t, os.WriteFile(path, []byte("instances.p."+kc.flat+"."+key+"="+s.ok[5]+"\n"), 0o600))
				opts = append(saved[:len(saved):len(saved)], r4c.WithPropertiesFile(path))
				check("instance key from a file", s.ok[5])
				opts = append(saved[:len(saved):len(saved)],
					r4c.WithEnv([]string{"R4C_INSTANCES_P_" + strings.ToUpper(kc.flat) + "_" + strings.ToUpper(key) + "=" + s.ok[5]}))
				check("instance variable from the environment", s.ok[5])
			})
		}
	}
}

// syntaxSample returns text that does not parse as typ, and its code.
func syntaxSample(typ string) (string, string) {
	switch typ {
	case "duration":
		return "1 sec", r4c.CodeDurationSyntax
	case "int", "float":
		return "x1", r4c.CodeValueSyntax
	case "bool":
		return "maybe", r4c.CodeValueSyntax
	}
	return "bogus", r4c.CodeValueSyntax // an enumeration
}

func TestEveryKeyErrorCodes(t *testing.T) {
	for _, kc := range allKinds() {
		for _, key := range kc.names {
			s := samples[kc.flat][key]
			t.Run(kc.flat+"."+key, func(t *testing.T) {
				build := func(reg *r4c.Registry, text string) error {
					_, err := kc.add(pipeline.NewBuilder[int](reg, "p"), "", key, text).Build()
					return err
				}
				// Text that does not parse: NewRegistry fails at every
				// scope, naming the key and text as given.
				text, syntaxCode := syntaxSample(kc.types[key])
				for _, k := range []string{"defaults." + kc.flat + "." + key, "configs.b." + kc.flat + "." + key, "instances.p." + kc.flat + "." + key} {
					_, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{k: text}))
					ce := code(t, err, syntaxCode, k)
					assert.Equal(t, text, ce.Value)
				}
				envVar := "R4C_INSTANCES_P_" + strings.ToUpper(kc.flat) + "_" + strings.ToUpper(key)
				_, err := r4c.NewRegistry(r4c.WithEnv([]string{envVar + "=" + text}))
				code(t, err, syntaxCode, envVar)

				if s.bad == "" {
					return
				}
				// Text that parses and breaks the key's rule: reported by
				// Validate when the layer or the instance is checked, with
				// the key and text as given.
				for _, k := range []string{"defaults." + kc.flat + "." + key, "configs.b." + kc.flat + "." + key} {
					_, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{k: s.bad}))
					ce := code(t, err, s.code, k+"="+s.bad)
					assert.Equal(t, k, ce.Key)
					assert.Equal(t, s.bad, ce.Value)
				}
				for _, opt := range []struct {
					key string
					opt r4c.Option
				}{
					{"instances.p." + kc.flat + "." + key, r4c.WithProperties(map[string]string{"instances.p." + kc.flat + "." + key: s.bad})},
					{envVar, r4c.WithEnv([]string{envVar + "=" + s.bad})},
				} {
					reg, err := r4c.NewRegistry(opt.opt)
					require.NoError(t, err)
					ce := code(t, build(reg, ""), s.code, opt.key+"="+s.bad)
					assert.Equal(t, opt.key, ce.Key)
					assert.Equal(t, s.bad, ce.Value)
					code(t, kc.lookup(reg, "p"), r4c.CodeUnknownInstance) // nothing was registered
				}
				// The same value in a builder closure gets the rule's code,
				// in a registry option R4C-REG-001.
				reg, err := r4c.NewRegistry()
				require.NoError(t, err)
				ce := code(t, build(reg, s.bad), s.code)
				assert.Equal(t, "instances.p."+kc.flat+"."+key, ce.Key)
				_, err = r4c.NewRegistry(kc.defaults(key, s.bad))
				ce = code(t, err, r4c.CodeInvalidInCode)
				assert.Equal(t, "defaults."+kc.flat+"."+key, ce.Key)
				_, err = r4c.NewRegistry(kc.config("b", key, s.bad))
				ce = code(t, err, r4c.CodeInvalidInCode)
				assert.Equal(t, "configs.b."+kc.flat+"."+key, ce.Key)
			})
		}
	}
}
