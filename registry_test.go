package r4c_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// build makes a pipeline "search" with an adaptive limit configured by fn
// and returns the resolved snapshot.
func build(t *testing.T, reg *r4c.Registry, fn func(*adaptivelimit.Config)) adaptivelimit.Snapshot {
	t.Helper()
	_, err := pipeline.NewBuilder[string](reg, "search").AdaptiveLimit(fn).Build()
	require.NoError(t, err)
	h, err := reg.AdaptiveLimit("search")
	require.NoError(t, err)
	return h.Snapshot()
}

func TestPrecedenceEveryLevel(t *testing.T) {
	base := func(c *adaptivelimit.Config) { c.BaseConfig = "backend" }
	steps := []struct {
		name    string
		opts    []r4c.Option
		builder func(*adaptivelimit.Config)
		want    int
	}{
		{"built-in", nil, nil, 200},
		{"defaults in code",
			[]r4c.Option{r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MaxLimit = 150 })}, nil, 150},
		{"external defaults win over code defaults",
			[]r4c.Option{
				r4c.WithProperties(map[string]string{"defaults.adaptiveLimit.maxLimit": "140"}),
				r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MaxLimit = 150 }),
			}, nil, 140},
		{"named config over defaults",
			[]r4c.Option{
				r4c.WithProperties(map[string]string{"defaults.adaptiveLimit.maxLimit": "140"}),
				r4c.WithAdaptiveLimitConfig("backend", func(c *adaptivelimit.Config) { c.MaxLimit = 130 }),
			}, base, 130},
		{"external named config over code named config",
			[]r4c.Option{
				r4c.WithProperties(map[string]string{"configs.backend.adaptiveLimit.maxLimit": "120"}),
				r4c.WithAdaptiveLimitConfig("backend", func(c *adaptivelimit.Config) { c.MaxLimit = 130 }),
			}, base, 120},
		{"builder over named config",
			[]r4c.Option{r4c.WithProperties(map[string]string{"configs.backend.adaptiveLimit.maxLimit": "120"})},
			func(c *adaptivelimit.Config) { c.BaseConfig = "backend"; c.MaxLimit = 110 }, 110},
		{"external instance over builder",
			[]r4c.Option{r4c.WithProperties(map[string]string{
				"configs.backend.adaptiveLimit.maxLimit":  "120",
				"instances.search.adaptiveLimit.maxLimit": "100",
			})},
			func(c *adaptivelimit.Config) { c.BaseConfig = "backend"; c.MaxLimit = 110 }, 100},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			reg, err := r4c.NewRegistry(s.opts...)
			require.NoError(t, err)
			assert.Equal(t, s.want, build(t, reg, s.builder).MaxLimit)
		})
	}
}

func TestLayersOnlySetWhatTheySet(t *testing.T) {
	reg, err := r4c.NewRegistry(
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 }),
		r4c.WithAdaptiveLimitConfig("backend", func(c *adaptivelimit.Config) {
			c.Algorithm = adaptivelimit.AIMD
			c.BackoffRatio = 0.8
		}),
		r4c.WithProperties(map[string]string{"defaults.adaptiveLimit.maxLimit": "100"}),
	)
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "search").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.BaseConfig = "backend"; c.InitialLimit = 7 }).Build()
	require.NoError(t, err)
	h, err := reg.AdaptiveLimit("search")
	require.NoError(t, err)
	cfg := h.Config()
	assert.Equal(t, 1, cfg.MinWindowSamples)
	assert.Equal(t, adaptivelimit.AIMD, cfg.Algorithm)
	assert.Equal(t, 0.8, cfg.BackoffRatio)
	assert.Equal(t, 100, cfg.MaxLimit)
	assert.Equal(t, 7, cfg.InitialLimit)
	assert.Equal(t, 1, cfg.MinLimit, "built-in default")
	assert.Equal(t, time.Second, cfg.Window, "built-in default")
	assert.Equal(t, 7, h.Limit())
}

func TestDurationsInGoAndISOSyntax(t *testing.T) {
	for _, v := range []string{"500ms", "PT0.5S", "pt0.5s"} {
		reg, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{"defaults.adaptiveLimit.window": v}))
		require.NoError(t, err, v)
		_, err = pipeline.NewBuilder[int](reg, "p").AdaptiveLimit(nil).Build()
		require.NoError(t, err)
		h, err := reg.AdaptiveLimit("p")
		require.NoError(t, err)
		assert.Equal(t, 500*time.Millisecond, h.Config().Window, v)
	}
}

// code asserts that err is a *r4c.ConfigError with the code, whose message
// starts with the code and contains every fragment.
func code(t *testing.T, err error, want string, fragments ...string) *r4c.ConfigError {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, r4c.ErrConfig)
	var ce *r4c.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, want, ce.Code, err.Error())
	assert.True(t, strings.HasPrefix(err.Error(), want+" "), "message starts with its code: %q", err.Error())
	for _, f := range fragments {
		assert.Contains(t, err.Error(), f)
	}
	return ce
}

func TestEveryErrorCode(t *testing.T) {
	props := func(k, v string) r4c.Option { return r4c.WithProperties(map[string]string{k: v}) }
	newReg := func(opts ...r4c.Option) error { _, err := r4c.NewRegistry(opts...); return err }
	buildWith := func(fn func(*adaptivelimit.Config), opts ...r4c.Option) error {
		reg, err := r4c.NewRegistry(opts...)
		if err != nil {
			return err
		}
		_, err = pipeline.NewBuilder[int](reg, "search").AdaptiveLimit(fn).Build()
		return err
	}

	t.Run("ATR-001 duration syntax", func(t *testing.T) {
		ce := code(t, newReg(props("defaults.adaptiveLimit.window", "1 sec")), r4c.CodeDurationSyntax, "defaults.adaptiveLimit.window")
		assert.Equal(t, "1 sec", ce.Value)
	})
	t.Run("ATR-002 number syntax", func(t *testing.T) {
		code(t, newReg(props("defaults.adaptiveLimit.maxLimit", "lots")), r4c.CodeValueSyntax, "maxLimit", "lots")
		code(t, newReg(props("defaults.adaptiveLimit.algorithm", "bbr")), r4c.CodeValueSyntax, "algorithm", "aimd")
	})
	t.Run("ATR-003 bound below one in builder", func(t *testing.T) {
		ce := code(t, buildWith(func(c *adaptivelimit.Config) { c.MinLimit = -1 }), r4c.CodeBoundBelowOne, "instances.search.adaptiveLimit.minLimit")
		assert.Equal(t, "-1", ce.Value)
		// A range is judged when the instance is built, with the text given.
		require.NoError(t, newReg(props("instances.search.adaptiveLimit.maxLimit", "0")))
		ce = code(t, buildWith(nil, props("instances.search.adaptiveLimit.maxLimit", "0")), r4c.CodeBoundBelowOne,
			"instances.search.adaptiveLimit.maxLimit=0")
		assert.Equal(t, "0", ce.Value)
	})
	t.Run("ATR-004 negative duration", func(t *testing.T) {
		code(t, buildWith(func(c *adaptivelimit.Config) { c.MaxWait = -time.Second }), r4c.CodeNegativeDuration, "maxWait")
		code(t, newReg(props("defaults.adaptiveLimit.maxWait", "-1s")), r4c.CodeNegativeDuration, "maxWait")
	})
	t.Run("ATR-005 out of range", func(t *testing.T) {
		code(t, newReg(props("configs.b.adaptiveLimit.backoffRatio", "0.2")), r4c.CodeOutOfRange, "backoffRatio", "[0.5, 1)")
		code(t, buildWith(func(c *adaptivelimit.Config) { c.RTTTolerance = 0.5 }), r4c.CodeOutOfRange, "rttTolerance")
	})
	t.Run("ATR-009 bounds out of order", func(t *testing.T) {
		code(t, buildWith(func(c *adaptivelimit.Config) { c.MinLimit = 50; c.MaxLimit = 10 }), r4c.CodeBoundsOrder)
		code(t, buildWith(nil, props("instances.search.adaptiveLimit.initialLimit", "500")), r4c.CodeBoundsOrder, "initialLimit")
	})
	t.Run("REG-001 invalid tuning in code", func(t *testing.T) {
		code(t, newReg(r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinLimit = -3 })), r4c.CodeInvalidInCode, "defaults.adaptiveLimit.minLimit")
		code(t, newReg(r4c.WithAdaptiveLimitConfig("b", func(c *adaptivelimit.Config) { c.MinLimit = 9; c.MaxLimit = 3 })), r4c.CodeInvalidInCode, "configs.b.adaptiveLimit")
		code(t, newReg(r4c.WithAdaptiveLimitConfig("b", func(c *adaptivelimit.Config) { c.BackoffRatio = 2 })), r4c.CodeInvalidInCode, "backoffRatio")
	})
	t.Run("REG-002 unknown key with suggestion", func(t *testing.T) {
		code(t, newReg(props("defaults.adaptiveLimit.maxLimt", "5")), r4c.CodeUnknownKey, `"maxLimit"`)
		code(t, newReg(props("defaults.adaptiveLimt.maxLimit", "5")), r4c.CodeUnknownKey, `"adaptiveLimit"`)
		code(t, newReg(props("default.adaptiveLimit.maxLimit", "5")), r4c.CodeUnknownKey, `"defaults"`)
		code(t, newReg(props("maxLimit", "5")), r4c.CodeUnknownKey)
		code(t, newReg(r4c.WithEnv([]string{"R4C_DEFAULTS_ADAPTIVELIMIT_MAXLIMT=5"})), r4c.CodeUnknownKey, "R4C_DEFAULTS_ADAPTIVELIMIT_MAXLIMT")
	})
	t.Run("REG-003 unreadable source", func(t *testing.T) {
		code(t, newReg(r4c.WithPropertiesFile(filepath.Join(t.TempDir(), "missing.properties"))), r4c.CodeSource)
	})
	t.Run("REG-004 unknown config", func(t *testing.T) {
		code(t, buildWith(func(c *adaptivelimit.Config) { c.BaseConfig = "backnd" },
			r4c.WithAdaptiveLimitConfig("backend", func(c *adaptivelimit.Config) {})), r4c.CodeUnknownConfig, "backnd", `"backend"`)
	})
	t.Run("REG-005 builder used twice", func(t *testing.T) {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		b := pipeline.NewBuilder[int](reg, "p").AdaptiveLimit(nil)
		_, err = b.Build()
		require.NoError(t, err)
		_, err = b.Build()
		code(t, err, r4c.CodeBuilder)
		_, err = pipeline.NewBuilder[int](reg, " ").AdaptiveLimit(nil).Build()
		code(t, err, r4c.CodeBuilder)
	})
	t.Run("REG-008 shared name with different config", func(t *testing.T) {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "a").AdaptiveLimit(func(c *adaptivelimit.Config) { c.Name = "shared"; c.MaxLimit = 50 }).Build()
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "b").AdaptiveLimit(func(c *adaptivelimit.Config) { c.Name = "shared"; c.MaxLimit = 60 }).Build()
		code(t, err, r4c.CodeSharedMismatch, "shared")
	})
	t.Run("REG-009 unknown id", func(t *testing.T) {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		_, err = pipeline.NewBuilder[int](reg, "search").AdaptiveLimit(nil).Build()
		require.NoError(t, err)
		_, err = reg.AdaptiveLimit("serch")
		code(t, err, r4c.CodeUnknownInstance, "serch", `"search"`)
	})
}

func TestSharingOneInstance(t *testing.T) {
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	require.NoError(t, err)
	shared := func(c *adaptivelimit.Config) { c.Name = "db"; c.InitialLimit = 1 }
	a, err := pipeline.NewBuilder[int](reg, "a").AdaptiveLimit(shared).Build()
	require.NoError(t, err)
	b, err := pipeline.NewBuilder[int](reg, "b").AdaptiveLimit(shared).Build()
	require.NoError(t, err)
	release := make(chan struct{})
	entered := make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := a.Execute(func() (int, error) { close(entered); <-release; return 1, nil })
		done <- err
	}()
	<-entered
	_, err = b.Execute(func() (int, error) { return 2, nil })
	require.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded, "b shares a's only slot")
	close(release)
	require.NoError(t, <-done)
	_, err = reg.AdaptiveLimit("a")
	require.Error(t, err, "the instance id is the shared name, not the pipeline's")
	snap := reg.Snapshot()
	require.Contains(t, snap.AdaptiveLimits, "db")
	assert.Equal(t, 0, snap.AdaptiveLimits["db"].InFlight)
}

func TestFailedBuildRegistersNothing(t *testing.T) {
	reg, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{"instances.bad.adaptiveLimit.minLimit": "300", "instances.bad.adaptiveLimit.maxLimit": "100"}))
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[int](reg, "bad").AdaptiveLimit(nil).Build()
	require.ErrorIs(t, err, r4c.ErrConfig)
	_, err = reg.AdaptiveLimit("bad")
	code(t, err, r4c.CodeUnknownInstance)
	assert.Empty(t, reg.Snapshot().AdaptiveLimits)
}

func TestPropertiesFileAndEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r4c.properties")
	require.NoError(t, os.WriteFile(path, []byte(`
# the file of the reference page
defaults.adaptiveLimit.maxLimit=100
configs.backend.adaptiveLimit.algorithm=aimd
configs.backend.adaptiveLimit.backoffRatio=0.8
configs.backend.adaptiveLimit.minWindowSamples=20
instances.orders.adaptiveLimit.rttTolerance=2
`), 0o600))
	reg, err := r4c.NewRegistry(
		r4c.WithPropertiesFile(path),
		r4c.WithEnv([]string{"R4C_INSTANCES_ORDERS_ADAPTIVELIMIT_MAXLIMIT=90", "HOME=/root", "R4C_DEFAULTS_ADAPTIVELIMIT_INITIALLIMIT=9"}),
	)
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[int](reg, "orders").AdaptiveLimit(func(c *adaptivelimit.Config) { c.BaseConfig = "backend" }).Build()
	require.NoError(t, err)
	h, err := reg.AdaptiveLimit("orders")
	require.NoError(t, err)
	cfg := h.Config()
	assert.Equal(t, adaptivelimit.AIMD, cfg.Algorithm)
	assert.Equal(t, 0.8, cfg.BackoffRatio)
	assert.Equal(t, 20, cfg.MinWindowSamples)
	assert.Equal(t, 2.0, cfg.RTTTolerance)
	assert.Equal(t, 90, cfg.MaxLimit, "the environment, given later, wins")
	assert.Equal(t, 9, cfg.InitialLimit)
}

func TestExternalEnabledFalseDisables(t *testing.T) {
	reg, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{"instances.p.adaptiveLimit.enabled": "false"}))
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[int](reg, "p").AdaptiveLimit(nil).Build()
	require.NoError(t, err)
	h, err := reg.AdaptiveLimit("p")
	require.NoError(t, err)
	assert.True(t, h.Config().Disabled)
	assert.True(t, h.Snapshot().Disabled)
}
