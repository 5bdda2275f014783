package r4c_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

func TestUnusedInstanceKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r4c.properties")
	require.NoError(t, os.WriteFile(path, []byte("instances.backnd.retry.maxAttempts=5\n"), 0o600))
	reg, err := r4c.NewRegistry(
		r4c.WithProperties(map[string]string{
			"instances.backend.adaptiveLimit.maxLimit": "50",
			"instances.backnd.adaptiveLimit.maxLimit":  "60",
			"defaults.adaptiveLimit.maxLimit":          "70", // not an instance key: never unused
		}),
		r4c.WithPropertiesFile(path),
		r4c.WithEnv([]string{"R4C_INSTANCES_BACKND_TIMEOUT_TIMEOUT=2s"}),
	)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{
		"instances.backend.adaptiveLimit.maxLimit", "instances.backnd.adaptiveLimit.maxLimit",
		"instances.backnd.retry.maxAttempts", "R4C_INSTANCES_BACKND_TIMEOUT_TIMEOUT",
	}, reg.UnusedKeys(), "nothing is built yet")

	_, err = pipeline.NewBuilder[int](reg, "backend").AdaptiveLimit(nil).Retry(nil).Timeout(nil).Build()
	require.NoError(t, err)
	assert.Equal(t, []string{
		"R4C_INSTANCES_BACKND_TIMEOUT_TIMEOUT", "instances.backnd.adaptiveLimit.maxLimit", "instances.backnd.retry.maxAttempts",
	}, reg.UnusedKeys())
	err = reg.CheckUnusedKeys()
	ce := code(t, err, r4c.CodeUnusedKey, "instances.backnd.adaptiveLimit.maxLimit", `"backend"`,
		"instances.backnd.retry.maxAttempts", "R4C_INSTANCES_BACKND_TIMEOUT_TIMEOUT", `"BACKEND"`)
	assert.NotEmpty(t, ce.Key)

	// A key for a kind the id was built without stays unused.
	reg, err = r4c.NewRegistry(r4c.WithProperties(map[string]string{"instances.backend.hedge.delay": "1s"}))
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[int](reg, "backend").AdaptiveLimit(nil).Build()
	require.NoError(t, err)
	assert.Equal(t, []string{"instances.backend.hedge.delay"}, reg.UnusedKeys())
	code(t, reg.CheckUnusedKeys(), r4c.CodeUnusedKey, "no hedge instance")

	// Once every key matches an instance, there is nothing to report.
	_, err = pipeline.NewBuilder[int](reg, "backend2").Hedge(func(c *hedge.Config) { c.Name = "backend" }).Build()
	require.NoError(t, err)
	assert.Empty(t, reg.UnusedKeys())
	assert.NoError(t, reg.CheckUnusedKeys())
}

// zeroCase sets a field in the registry's defaults and sets it back to zero
// in the builder with SetZero.
type zeroCase struct {
	kind  string
	key   string
	opt   r4c.Option
	build func(b *pipeline.Builder[int]) *pipeline.Builder[int]
	read  func(t *testing.T, reg *r4c.Registry) any
	zero  any
}

func TestSetZeroOverALowerLayer(t *testing.T) {
	for _, tc := range []zeroCase{
		{"adaptiveLimit", "maxWait",
			r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MaxWait = time.Second }),
			func(b *pipeline.Builder[int]) *pipeline.Builder[int] {
				return b.AdaptiveLimit(func(c *adaptivelimit.Config) { c.SetZero("maxWait") })
			},
			func(t *testing.T, reg *r4c.Registry) any {
				h, err := reg.AdaptiveLimit("p")
				require.NoError(t, err)
				return h.Config().MaxWait
			},
			time.Duration(0)},
		{"retry", "wait",
			r4c.WithRetryDefaults(func(c *retry.Config) { c.Wait = time.Second }),
			func(b *pipeline.Builder[int]) *pipeline.Builder[int] {
				return b.Retry(func(c *retry.Config) { c.SetZero("wait") })
			},
			func(t *testing.T, reg *r4c.Registry) any {
				h, err := reg.Retry("p")
				require.NoError(t, err)
				return h.Config().Wait
			},
			time.Duration(0)},
		{"bulkhead", "maxWait",
			r4c.WithBulkheadDefaults(func(c *bulkhead.Config) { c.MaxWait = time.Second }),
			func(b *pipeline.Builder[int]) *pipeline.Builder[int] {
				return b.Bulkhead(func(c *bulkhead.Config) { c.SetZero("maxWait") })
			},
			func(t *testing.T, reg *r4c.Registry) any {
				h, err := reg.Bulkhead("p")
				require.NoError(t, err)
				return h.Config().MaxWait
			},
			time.Duration(0)},
		{"rateLimit", "maxWait",
			r4c.WithRateLimitDefaults(func(c *ratelimit.Config) { c.MaxWait = time.Second }),
			func(b *pipeline.Builder[int]) *pipeline.Builder[int] {
				return b.RateLimit(func(c *ratelimit.Config) { c.SetZero("maxWait") })
			},
			func(t *testing.T, reg *r4c.Registry) any {
				h, err := reg.RateLimit("p")
				require.NoError(t, err)
				return h.Config().MaxWait
			},
			time.Duration(0)},
		{"breaker", "maxHalfOpenWait",
			r4c.WithBreakerDefaults(func(c *breaker.Config) { c.MaxHalfOpenWait = time.Second }),
			func(b *pipeline.Builder[int]) *pipeline.Builder[int] {
				return b.Breaker(func(c *breaker.Config) { c.SetZero("maxHalfOpenWait") })
			},
			func(t *testing.T, reg *r4c.Registry) any {
				h, err := reg.Breaker("p")
				require.NoError(t, err)
				return h.Config().MaxHalfOpenWait
			},
			time.Duration(0)},
		{"timeout", "cooperative",
			r4c.WithTimeoutDefaults(func(c *timeout.Config) { c.Cooperative = true }),
			func(b *pipeline.Builder[int]) *pipeline.Builder[int] {
				return b.Timeout(func(c *timeout.Config) { c.SetZero("cooperative") })
			},
			func(t *testing.T, reg *r4c.Registry) any {
				h, err := reg.Timeout("p")
				require.NoError(t, err)
				return h.Config().Cooperative
			},
			false},
	} {
		t.Run(tc.kind+"."+tc.key, func(t *testing.T) {
			reg, err := r4c.NewRegistry(tc.opt)
			require.NoError(t, err)
			_, err = tc.build(pipeline.NewBuilder[int](reg, "p")).Build()
			require.NoError(t, err)
			assert.Equal(t, tc.zero, tc.read(t, reg))
		})
	}

	t.Run("a zero that is not valid is reported as such", func(t *testing.T) {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "p").Hedge(func(c *hedge.Config) { c.SetZero("delay") }).Build()
		code(t, err, r4c.CodeNegativeDuration, "instances.p.hedge.delay=0s", "must be positive")
		_, err = pipeline.NewBuilder[int](reg, "p").AdaptiveLimit(func(c *adaptivelimit.Config) { c.SetZero("maxLimit") }).Build()
		code(t, err, r4c.CodeBoundBelowOne, "instances.p.adaptiveLimit.maxLimit=0")
	})
	t.Run("in a named configuration", func(t *testing.T) {
		reg, err := r4c.NewRegistry(
			r4c.WithRetryDefaults(func(c *retry.Config) { c.Wait = time.Second }),
			r4c.WithRetryConfig("fast", func(c *retry.Config) { c.SetZero("wait") }),
		)
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "p").Retry(func(c *retry.Config) { c.BaseConfig = "fast" }).Build()
		require.NoError(t, err)
		h, err := reg.Retry("p")
		require.NoError(t, err)
		assert.Zero(t, h.Config().Wait)
	})
	t.Run("a higher layer sets it again", func(t *testing.T) {
		reg, err := r4c.NewRegistry(
			r4c.WithRetryDefaults(func(c *retry.Config) { c.SetZero("wait") }),
			r4c.WithProperties(map[string]string{"instances.p.retry.wait": "2s"}),
		)
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "p").Retry(nil).Build()
		require.NoError(t, err)
		h, err := reg.Retry("p")
		require.NoError(t, err)
		assert.Equal(t, 2*time.Second, h.Config().Wait)
	})
	t.Run("unknown names", func(t *testing.T) {
		_, err := r4c.NewRegistry(r4c.WithRetryDefaults(func(c *retry.Config) { c.SetZero("wiat") }))
		code(t, err, r4c.CodeInvalidInCode, "defaults.retry", "wiat", `"wait"`)
		_, err = r4c.NewRegistry(r4c.WithRetryConfig("b", func(c *retry.Config) { c.SetZero("wiat") }))
		code(t, err, r4c.CodeInvalidInCode, "configs.b.retry", "wiat")
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "p").Retry(func(c *retry.Config) { c.SetZero("wiat") }).Build()
		code(t, err, r4c.CodeBuilder, "instances.p.retry", "wiat", `"wait"`)
	})
	t.Run("enabled is refused", func(t *testing.T) {
		_, err := r4c.NewRegistry(r4c.WithRetryDefaults(func(c *retry.Config) { c.SetZero("enabled") }))
		code(t, err, r4c.CodeInvalidInCode, "enabled", "Enable()")
	})
}

func TestEnableOverALowerLayer(t *testing.T) {
	reg, err := r4c.NewRegistry(
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.Disabled = true }),
		r4c.WithTimeoutDefaults(func(c *timeout.Config) { c.Disabled = true }),
		r4c.WithBulkheadDefaults(func(c *bulkhead.Config) { c.Disabled = true }),
		r4c.WithRateLimitDefaults(func(c *ratelimit.Config) { c.Disabled = true }),
		r4c.WithRetryDefaults(func(c *retry.Config) { c.Disabled = true }),
		r4c.WithBreakerDefaults(func(c *breaker.Config) { c.Disabled = true }),
		r4c.WithHedgeDefaults(func(c *hedge.Config) { c.Disabled = true }),
		r4c.WithFallbackDefaults(func(c *fallback.Config) { c.Disabled = true }),
	)
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[int](reg, "off").
		AdaptiveLimit(nil).Timeout(nil).Bulkhead(nil).RateLimit(nil).Retry(nil).Breaker(nil).Hedge(nil).Fallback(nil).Build()
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[int](reg, "on").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.Enable() }).
		Timeout(func(c *timeout.Config) { c.Enable() }).
		Bulkhead(func(c *bulkhead.Config) { c.Enable() }).
		RateLimit(func(c *ratelimit.Config) { c.Enable() }).
		Retry(func(c *retry.Config) { c.Enable() }).
		Breaker(func(c *breaker.Config) { c.Enable() }).
		Hedge(func(c *hedge.Config) { c.Enable() }).
		Fallback(func(c *fallback.Config) { c.Enable() }).
		Build()
	require.NoError(t, err)
	for _, id := range []string{"off", "on"} {
		want := id == "off"
		snap := reg.Snapshot()
		assert.Equal(t, want, snap.AdaptiveLimits[id].Disabled, id)
		assert.Equal(t, want, snap.Timeouts[id].Disabled, id)
		assert.Equal(t, want, snap.Bulkheads[id].Disabled, id)
		assert.Equal(t, want, snap.RateLimits[id].Disabled, id)
		assert.Equal(t, want, snap.Retries[id].Disabled, id)
		assert.Equal(t, want, snap.Breakers[id].Disabled, id)
		assert.Equal(t, want, snap.Hedges[id].Disabled, id)
		assert.Equal(t, want, snap.Fallbacks[id].Disabled, id)
	}
}

func TestSnapshotsMarshalToJSON(t *testing.T) {
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	require.NoError(t, err)
	p, err := pipeline.NewBuilder[int](reg, "p").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.Algorithm = adaptivelimit.AIMD; c.MinWindowSamples = 1 }).
		Timeout(func(c *timeout.Config) { c.Timeout = 1500 * time.Millisecond; c.Cooperative = true }).
		Bulkhead(func(c *bulkhead.Config) { c.MaxWait = 250 * time.Millisecond }).
		RateLimit(func(c *ratelimit.Config) { c.Period = 2 * time.Second; c.MaxWait = time.Millisecond }).
		Retry(nil).Breaker(nil).
		Hedge(func(c *hedge.Config) { c.Delay = 300 * time.Millisecond }).
		Fallback(nil).Build()
	require.NoError(t, err)
	_, err = p.Execute(func() (int, error) { return 1, nil })
	require.NoError(t, err)
	snap := reg.Snapshot()
	for _, tc := range []struct {
		kind string
		v    any
		want map[string]any
	}{
		{"adaptiveLimit", snap.AdaptiveLimits["p"], map[string]any{"Algorithm": "aimd", "WindowLatency": "0s", "LongLatency": "0s", "Disabled": false}},
		{"timeout", snap.Timeouts["p"], map[string]any{"Timeout": "1.5s", "Cooperative": true, "Timeouts": 0.0}},
		{"bulkhead", snap.Bulkheads["p"], map[string]any{"MaxWait": "250ms", "MaxConcurrent": 25.0}},
		{"rateLimit", snap.RateLimits["p"], map[string]any{"Period": "2s", "MaxWait": "1ms"}},
		{"retry", snap.Retries["p"], map[string]any{"MaxAttempts": 3.0, "Calls": 1.0}},
		{"breaker", snap.Breakers["p"], map[string]any{"State": "closed", "FailureRate": -1.0}},
		{"hedge", snap.Hedges["p"], map[string]any{"Delay": "300ms", "MaxHedged": 1.0}},
		{"fallback", snap.Fallbacks["p"], map[string]any{"Calls": 1.0, "Disabled": false}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			b, err := json.Marshal(tc.v)
			require.NoError(t, err)
			var got map[string]any
			require.NoError(t, json.Unmarshal(b, &got))
			for k, v := range tc.want {
				assert.Equal(t, v, got[k], "%s in %s", k, b)
			}
		})
	}
	whole, err := json.Marshal(snap)
	require.NoError(t, err)
	assert.Contains(t, string(whole), `"Algorithm":"aimd"`)
	assert.Contains(t, string(whole), `"Timeout":"1.5s"`)
}

func TestHandlesAreAlike(t *testing.T) {
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[int](reg, "p").
		AdaptiveLimit(nil).Timeout(nil).Bulkhead(nil).RateLimit(nil).Retry(nil).Breaker(nil).Hedge(nil).Fallback(nil).Build()
	require.NoError(t, err)
	al, _ := reg.AdaptiveLimit("p")
	to, _ := reg.Timeout("p")
	bh, _ := reg.Bulkhead("p")
	rl, _ := reg.RateLimit("p")
	rt, _ := reg.Retry("p")
	br, _ := reg.Breaker("p")
	hd, _ := reg.Hedge("p")
	fb, _ := reg.Fallback("p")
	configs := []any{al.Config(), to.Config(), bh.Config(), rl.Config(), rt.Config(), br.Config(), hd.Config(), fb.Config()}
	snaps := []any{al.Snapshot(), to.Snapshot(), bh.Snapshot(), rl.Snapshot(), rt.Snapshot(), br.Snapshot(), hd.Snapshot(), fb.Snapshot()}
	for _, c := range configs {
		f, ok := reflect.TypeOf(c).FieldByName("Name")
		require.True(t, ok)
		assert.Equal(t, reflect.String, f.Type.Kind())
		assert.Equal(t, "p", reflect.ValueOf(c).FieldByName("Name").String(), "%T records its instance id", c)
	}
	for _, s := range snaps {
		typ := reflect.TypeOf(s)
		f, ok := typ.FieldByName("Disabled")
		require.True(t, ok, "%v has a Disabled field", typ)
		assert.Equal(t, reflect.Bool, f.Type.Kind())
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Type.PkgPath() != "" {
				continue // an enumeration, such as breaker.State
			}
			switch f.Type.Kind() {
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Int32:
				t.Errorf("%v.%s is a %v: counters are int64, settings and gauges int", typ, f.Name, f.Type)
			}
		}
	}
	counters := map[reflect.Type][]string{
		reflect.TypeOf(al.Snapshot()): {"Windows", "Drops", "Rejections"},
		reflect.TypeOf(to.Snapshot()): {"Timeouts"},
		reflect.TypeOf(bh.Snapshot()): {"Rejections"},
		reflect.TypeOf(rl.Snapshot()): {"Rejections"},
		reflect.TypeOf(rt.Snapshot()): {"Calls", "Retries", "Exhausted", "Cancelled"},
		reflect.TypeOf(br.Snapshot()): {"Calls", "NotPermitted"},
		reflect.TypeOf(hd.Snapshot()): {"Calls", "HedgesStarted", "HedgeWins", "RejectionStops"},
		reflect.TypeOf(fb.Snapshot()): {"Calls", "Handled", "FuncFailures"},
	}
	for typ, names := range counters {
		for _, n := range names {
			f, ok := typ.FieldByName(n)
			require.True(t, ok, "%v.%s", typ, n)
			assert.Equal(t, reflect.Int64, f.Type.Kind(), "%v.%s", typ, n)
		}
	}
}
