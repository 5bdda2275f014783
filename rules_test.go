package r4c_test

// The behaviours of issue 11, one test each: enumerations parse through
// their own UnmarshalText, errors report the text the user gave, a shared
// instance never shares a builder's funcs silently, baseConfig only where
// it means something, and one unit per ratio.

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/retry"
)

func TestEnumerationKeysParseThroughUnmarshalText(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		check      func(t *testing.T, reg *r4c.Registry)
	}{
		{"instances.p.breaker.windowType", "TIME_BASED", func(t *testing.T, reg *r4c.Registry) {
			h, err := reg.Breaker("p")
			require.NoError(t, err)
			assert.Equal(t, breaker.TimeBased, h.Config().WindowType)
		}},
		{"instances.p.breaker.windowType", "count", func(t *testing.T, reg *r4c.Registry) {
			h, err := reg.Breaker("p")
			require.NoError(t, err)
			assert.Equal(t, breaker.CountBased, h.Config().WindowType)
		}},
		{"instances.p.retry.jitter", "FULL", func(t *testing.T, reg *r4c.Registry) {
			h, err := reg.Retry("p")
			require.NoError(t, err)
			assert.Equal(t, retry.JitterFull, h.Config().Jitter)
		}},
		{"instances.p.adaptiveLimit.algorithm", "AIMD", func(t *testing.T, reg *r4c.Registry) {
			h, err := reg.AdaptiveLimit("p")
			require.NoError(t, err)
			assert.Equal(t, adaptivelimit.AIMD, h.Config().Algorithm)
		}},
	} {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			reg, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{tc.key: tc.value}))
			require.NoError(t, err)
			_, err = pipeline.NewBuilder[int](reg, "p").Breaker(nil).Retry(nil).AdaptiveLimit(nil).Build()
			require.NoError(t, err)
			tc.check(t, reg)
		})
	}
}

func TestErrorsReportTheTextGiven(t *testing.T) {
	buildAll := func(opts ...r4c.Option) error {
		reg, err := r4c.NewRegistry(opts...)
		if err != nil {
			return err
		}
		_, err = pipeline.NewBuilder[int](reg, "x").Breaker(nil).Retry(nil).Build()
		return err
	}
	props := func(k, v string) r4c.Option { return r4c.WithProperties(map[string]string{k: v}) }
	for _, tc := range []struct {
		name      string
		opt       r4c.Option
		code, key string
		value     string
	}{
		{"instance key", props("instances.x.breaker.windowDuration", "P2D"), r4c.CodeBoundsOrder, "instances.x.breaker.windowDuration", "P2D"},
		{"defaults key", props("defaults.breaker.windowDuration", "P2D"), r4c.CodeBoundsOrder, "defaults.breaker.windowDuration", "P2D"},
		{"named config key", props("configs.b.breaker.windowDuration", "P2D"), r4c.CodeBoundsOrder, "configs.b.breaker.windowDuration", "P2D"},
		{"retry maxDelay below wait", props("instances.x.retry.maxDelay", "PT0.1S"), r4c.CodeBoundsOrder, "instances.x.retry.maxDelay", "PT0.1S"},
		{"environment", r4c.WithEnv([]string{"R4C_INSTANCES_X_BREAKER_WINDOWDURATION=P2D"}), r4c.CodeBoundsOrder,
			"R4C_INSTANCES_X_BREAKER_WINDOWDURATION", "P2D"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ce := code(t, buildAll(tc.opt), tc.code, tc.key+"="+tc.value)
			assert.Equal(t, tc.key, ce.Key)
			assert.Equal(t, tc.value, ce.Value)
		})
	}
}

var (
	errOne = errors.New("one")
	errTwo = errors.New("two")
)

// dropIfIs is kept out of line so that its closures share one code
// pointer, whatever they capture.
//
//go:noinline
func dropIfIs(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

func TestSharedInstanceNeverSharesABuildersFuncs(t *testing.T) {
	t.Run("closures of one helper", func(t *testing.T) {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		_, errA := pipeline.NewBuilder[int](reg, "a").AdaptiveLimit(func(c *adaptivelimit.Config) { c.Name = "shared"; c.DropIf = dropIfIs(errOne) }).Build()
		_, errB := pipeline.NewBuilder[int](reg, "b").AdaptiveLimit(func(c *adaptivelimit.Config) { c.Name = "shared"; c.DropIf = dropIfIs(errTwo) }).Build()
		require.Error(t, errors.Join(errA, errB), "two predicates must never be shared silently")
		err = errA
		if err == nil {
			err = errB
		}
		code(t, err, r4c.CodeSharedMismatch, "DropIf", "WithAdaptiveLimitConfig", "BaseConfig")
	})
	t.Run("inline closures", func(t *testing.T) {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "a").AdaptiveLimit(func(c *adaptivelimit.Config) {
			c.Name = "shared"
			c.DropIf = func(err error) bool { return errors.Is(err, errOne) }
		}).Build()
		code(t, err, r4c.CodeSharedMismatch, "DropIf", "shared", "WithAdaptiveLimitConfig", "BaseConfig")
	})
	t.Run("from a named configuration", func(t *testing.T) {
		reg, err := r4c.NewRegistry(r4c.WithAdaptiveLimitConfig("db", func(c *adaptivelimit.Config) { c.DropIf = dropIfIs(errOne) }))
		require.NoError(t, err)
		shared := func(c *adaptivelimit.Config) { c.Name = "shared"; c.BaseConfig = "db" }
		_, err = pipeline.NewBuilder[int](reg, "a").AdaptiveLimit(shared).Build()
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "b").AdaptiveLimit(shared).Build()
		require.NoError(t, err)
		h, err := reg.AdaptiveLimit("shared")
		require.NoError(t, err)
		assert.True(t, h.Config().DropIf(errOne))
	})
	t.Run("different values name the key", func(t *testing.T) {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "a").AdaptiveLimit(func(c *adaptivelimit.Config) { c.Name = "shared"; c.MaxLimit = 50 }).Build()
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "b").AdaptiveLimit(func(c *adaptivelimit.Config) { c.Name = "shared"; c.MaxLimit = 60 }).Build()
		code(t, err, r4c.CodeSharedMismatch, "maxLimit", "50", "60")
	})
}

func TestBaseConfigOnlyInTheInstancesScope(t *testing.T) {
	for _, opt := range []r4c.Option{
		r4c.WithProperties(map[string]string{"defaults.adaptiveLimit.baseConfig": "nope"}),
		r4c.WithProperties(map[string]string{"configs.x.adaptiveLimit.baseConfig": "nope"}),
		r4c.WithEnv([]string{"R4C_DEFAULTS_ADAPTIVELIMIT_BASECONFIG=nope"}),
		r4c.WithEnv([]string{"R4C_CONFIGS_X_ADAPTIVELIMIT_BASECONFIG=nope"}),
	} {
		_, err := r4c.NewRegistry(opt)
		code(t, err, r4c.CodeUnknownKey, "baseConfig", "instances.<id>.<kind>.baseConfig")
	}
}

func TestEnvironmentVariableWithAnEmptyPart(t *testing.T) {
	for _, v := range []string{
		"R4C_INSTANCES__ADAPTIVELIMIT_MAXLIMIT=5", // no instance id
		"R4C_CONFIGS__ADAPTIVELIMIT_MAXLIMIT=5",   // no configuration name
		"R4C_INSTANCES_X__MAXLIMIT=5",             // no kind
		"R4C_DEFAULTS__MAXLIMIT=5",                // no kind
		"R4C_INSTANCES_X_ADAPTIVELIMIT_=5",        // no key
	} {
		_, err := r4c.NewRegistry(r4c.WithEnv([]string{v}))
		code(t, err, r4c.CodeUnknownKey, v[:len(v)-2], "empty")
	}
	// The same key in a map is refused the same way.
	_, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{"instances..adaptiveLimit.maxLimit": "5"}))
	code(t, err, r4c.CodeUnknownKey, "empty")
}

func TestRatiosAreFractions(t *testing.T) {
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(r4c.WithClock(clk), r4c.WithProperties(map[string]string{
		"instances.p.breaker.windowSize":           "4",
		"instances.p.breaker.minimumCalls":         "4",
		"instances.p.breaker.failureRateThreshold": "0.5",
	}))
	require.NoError(t, err)
	p, err := pipeline.NewBuilder[int](reg, "p").Breaker(nil).Build()
	require.NoError(t, err)
	fail := func() (int, error) { return 0, errOne }
	ok := func() (int, error) { return 1, nil }
	for _, fn := range []func() (int, error){ok, ok, ok, fail} {
		_, _ = p.Execute(fn)
	}
	h, err := reg.Breaker("p")
	require.NoError(t, err)
	assert.Equal(t, 0.5, h.Config().FailureRateThreshold)
	assert.Equal(t, breaker.StateClosed, h.State(), "one failure in four calls is below 0.5")
	_, _ = p.Execute(fail)
	assert.Equal(t, breaker.StateOpen, h.State(), "two failures in four calls is 0.5")

	reg, err = r4c.NewRegistry(r4c.WithClock(clk), r4c.WithProperties(map[string]string{
		"instances.q.breaker.windowSize":   "4",
		"instances.q.breaker.minimumCalls": "4",
	}))
	require.NoError(t, err)
	q, err := pipeline.NewBuilder[int](reg, "q").Breaker(nil).Build()
	require.NoError(t, err)
	for _, fn := range []func() (int, error){ok, ok, ok, fail} {
		_, _ = q.Execute(fn)
	}
	hq, err := reg.Breaker("q")
	require.NoError(t, err)
	assert.Equal(t, breaker.StateClosed, hq.State())
	assert.Equal(t, 0.25, hq.Snapshot().FailureRate, "snapshots give rates as fractions")
	assert.Equal(t, 0.0, hq.Snapshot().SlowCallRate)

	for _, key := range []string{
		"instances.p.breaker.failureRateThreshold", "instances.p.breaker.slowCallRateThreshold",
		"instances.p.adaptiveLimit.lowPriorityShare",
	} {
		reg, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{key: "50"}))
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "p").Breaker(nil).AdaptiveLimit(nil).Build()
		ce := code(t, err, r4c.CodeOutOfRange, key+"=50", "a fraction in (0, 1]: 50 % is 0.5")
		assert.Equal(t, "50", ce.Value)
	}
	_, err = pipeline.NewBuilder[int](reg, "r").Breaker(func(c *breaker.Config) { c.FailureRateThreshold = 50 }).Build()
	code(t, err, r4c.CodeOutOfRange, "failureRateThreshold=50", "50 % is 0.5")
}

func TestErrorsNameTheLayerThatSetTheKey(t *testing.T) {
	reg, err := r4c.NewRegistry(
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinLimit = 50 }),
		r4c.WithProperties(map[string]string{"configs.b.adaptiveLimit.minLimit": "60"}),
	)
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[int](reg, "p").AdaptiveLimit(func(c *adaptivelimit.Config) { c.MaxLimit = 10 }).Build()
	ce := code(t, err, r4c.CodeInvalidInCode, "defaults.adaptiveLimit.minLimit=50", "must not exceed maxLimit (10)", "building instance p")
	assert.Equal(t, "defaults.adaptiveLimit.minLimit", ce.Key)
	_, err = pipeline.NewBuilder[int](reg, "q").AdaptiveLimit(func(c *adaptivelimit.Config) { c.BaseConfig = "b"; c.MaxLimit = 10 }).Build()
	ce = code(t, err, r4c.CodeBoundsOrder, "configs.b.adaptiveLimit.minLimit=60", "building instance q")
	assert.Equal(t, "60", ce.Value)
	_, err = pipeline.NewBuilder[int](reg, "r").AdaptiveLimit(func(c *adaptivelimit.Config) { c.MinLimit = 20; c.MaxLimit = 10 }).Build()
	ce = code(t, err, r4c.CodeBoundsOrder, "instances.r.adaptiveLimit.minLimit=20")
	assert.NotContains(t, ce.Rule, "building instance")
}
