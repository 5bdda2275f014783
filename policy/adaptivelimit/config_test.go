package adaptivelimit_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

func TestWithDefaults(t *testing.T) {
	c := adaptivelimit.Config{}.WithDefaults()
	assert.Equal(t, 20, c.InitialLimit)
	assert.Equal(t, 1, c.MinLimit)
	assert.Equal(t, 200, c.MaxLimit)
	assert.Equal(t, time.Second, c.Window)
	assert.Equal(t, 10, c.MinWindowSamples)
	assert.Equal(t, 0.2, c.Smoothing)
	assert.Equal(t, 1.5, c.RTTTolerance)
	assert.Equal(t, 600, c.LongWindow)
	assert.Equal(t, 4, c.QueueSize)
	assert.Equal(t, 0.9, c.BackoffRatio)
	assert.Equal(t, 30, c.ProbeMultiplier)
	assert.Equal(t, 0.8, c.LowPriorityShare)
	assert.Equal(t, time.Duration(0), c.MaxWait)
	assert.Equal(t, time.Duration(0), c.LatencyCeiling)
	assert.Equal(t, adaptivelimit.Gradient2, c.Algorithm)
	assert.False(t, c.Disabled)
	require.Len(t, c.DropOn, 2)
	assert.True(t, errors.Is(c.DropOn[0], policy.ErrCallTimeout))
	assert.True(t, errors.Is(c.DropOn[1], policy.ErrBulkheadFull))
	require.NoError(t, c.Validate())

	assert.Equal(t, 1.0, adaptivelimit.Config{Algorithm: adaptivelimit.Vegas}.WithDefaults().Smoothing)
	assert.Equal(t, 0.2, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD}.WithDefaults().Smoothing)
	assert.Equal(t, 0.5, adaptivelimit.Config{Algorithm: adaptivelimit.Vegas, Smoothing: 0.5}.WithDefaults().Smoothing)

	// An explicitly empty DropOn stays empty: no error is a drop.
	assert.Empty(t, adaptivelimit.Config{DropOn: []error{}}.WithDefaults().DropOn)
	assert.NotNil(t, adaptivelimit.Config{DropOn: []error{}}.WithDefaults().DropOn)

	// Set values are kept.
	set := adaptivelimit.Config{InitialLimit: 7, MinLimit: 2, MaxLimit: 9, Window: time.Minute, MinWindowSamples: 3,
		Smoothing: 0.5, RTTTolerance: 2, LongWindow: 5, QueueSize: 6, BackoffRatio: 0.7, ProbeMultiplier: 4,
		LowPriorityShare: 0.5, MaxWait: time.Second, LatencyCeiling: time.Second, DropOn: []error{errors.ErrUnsupported}}
	assert.Equal(t, set, set.WithDefaults())
}

func TestWithDefaultsFollowsSetBounds(t *testing.T) {
	// Setting one bound alone is never an error: the unset ones follow it.
	c := adaptivelimit.Config{MaxLimit: 10}.WithDefaults()
	assert.Equal(t, 10, c.InitialLimit)
	require.NoError(t, c.Validate())

	c = adaptivelimit.Config{MinLimit: 50}.WithDefaults()
	assert.Equal(t, 50, c.InitialLimit)
	assert.Equal(t, 200, c.MaxLimit)
	require.NoError(t, c.Validate())

	c = adaptivelimit.Config{MinLimit: 500}.WithDefaults()
	assert.Equal(t, 500, c.MaxLimit)
	assert.Equal(t, 500, c.InitialLimit)
	require.NoError(t, c.Validate())

	// Explicit values out of order stay an error.
	err := adaptivelimit.Config{InitialLimit: 20, MaxLimit: 10}.WithDefaults().Validate()
	assertFieldError(t, err, "initialLimit", "20", policy.ClassOrder)
}

func assertFieldError(t *testing.T, err error, key, value string, class policy.Class) {
	t.Helper()
	var fe *policy.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, key, fe.Key, "key")
	assert.Equal(t, value, fe.Value, "value")
	assert.Equal(t, class, fe.Class, "class of %v", err)
	assert.NotEmpty(t, fe.Rule)
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(*adaptivelimit.Config)
		key   string
		value string
		class policy.Class
		rule  string
	}{
		{"algorithm", func(c *adaptivelimit.Config) { c.Algorithm = 9 }, "algorithm", "9", policy.ClassRange, ""},
		{"algorithm after little", func(c *adaptivelimit.Config) { c.Algorithm = adaptivelimit.Little + 1 }, "algorithm", "4", policy.ClassRange, "little"},
		{"minLimit", func(c *adaptivelimit.Config) { c.MinLimit = -1 }, "minLimit", "-1", policy.ClassBound, "at least 1"},
		{"maxLimit", func(c *adaptivelimit.Config) { c.MaxLimit = -3 }, "maxLimit", "-3", policy.ClassBound, "at least 1"},
		{"initialLimit", func(c *adaptivelimit.Config) { c.InitialLimit = -1 }, "initialLimit", "-1", policy.ClassBound, "at least 1"},
		{"minWindowSamples", func(c *adaptivelimit.Config) { c.MinWindowSamples = -1 }, "minWindowSamples", "-1", policy.ClassBound, "at least 1"},
		{"longWindow", func(c *adaptivelimit.Config) { c.LongWindow = -1 }, "longWindow", "-1", policy.ClassBound, "at least 1"},
		{"queueSize", func(c *adaptivelimit.Config) { c.QueueSize = -1 }, "queueSize", "-1", policy.ClassBound, "at least 1"},
		{"probeMultiplier", func(c *adaptivelimit.Config) { c.ProbeMultiplier = -1 }, "probeMultiplier", "-1", policy.ClassBound, "at least 1"},
		{"maxLimit too large", func(c *adaptivelimit.Config) { c.MaxLimit = 1<<30 + 1 }, "maxLimit", "1073741825", policy.ClassRange, ""},
		{"min above max", func(c *adaptivelimit.Config) { c.MinLimit, c.MaxLimit = 10, 5 }, "minLimit", "10", policy.ClassOrder, "maxLimit (5)"},
		{"initial below min", func(c *adaptivelimit.Config) { c.MinLimit, c.InitialLimit = 10, 5 }, "initialLimit", "5", policy.ClassOrder, "minLimit (10)"},
		{"initial above max", func(c *adaptivelimit.Config) { c.MaxLimit, c.InitialLimit = 10, 50 }, "initialLimit", "50", policy.ClassOrder, "maxLimit (10)"},
		{"window negative", func(c *adaptivelimit.Config) { c.Window = -time.Second }, "window", "-1s", policy.ClassDuration, ""},
		{"window short", func(c *adaptivelimit.Config) { c.Window = time.Microsecond }, "window", "1µs", policy.ClassOrder, "window out of range"},
		{"window long", func(c *adaptivelimit.Config) { c.Window = 2 * time.Hour }, "window", "2h0m0s", policy.ClassOrder, "window out of range"},
		{"smoothing", func(c *adaptivelimit.Config) { c.Smoothing = 1.5 }, "smoothing", "1.5", policy.ClassRange, ""},
		{"smoothing negative", func(c *adaptivelimit.Config) { c.Smoothing = -0.1 }, "smoothing", "-0.1", policy.ClassRange, ""},
		{"smoothing NaN", func(c *adaptivelimit.Config) { c.Smoothing = math.NaN() }, "smoothing", "NaN", policy.ClassRange, ""},
		{"rttTolerance", func(c *adaptivelimit.Config) { c.RTTTolerance = 0.9 }, "rttTolerance", "0.9", policy.ClassRange, ""},
		{"backoffRatio low", func(c *adaptivelimit.Config) { c.BackoffRatio = 0.4 }, "backoffRatio", "0.4", policy.ClassRange, ""},
		{"backoffRatio one", func(c *adaptivelimit.Config) { c.BackoffRatio = 1 }, "backoffRatio", "1", policy.ClassRange, ""},
		{"lowPriorityShare", func(c *adaptivelimit.Config) { c.LowPriorityShare = 1.1 }, "lowPriorityShare", "1.1", policy.ClassRange, ""},
		{"maxWait", func(c *adaptivelimit.Config) { c.MaxWait = -1 }, "maxWait", "-1ns", policy.ClassDuration, ""},
		{"latencyCeiling", func(c *adaptivelimit.Config) { c.LatencyCeiling = -time.Millisecond }, "latencyCeiling", "-1ms", policy.ClassDuration, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c adaptivelimit.Config
			tc.set(&c)
			err := c.WithDefaults().Validate()
			assertFieldError(t, err, tc.key, tc.value, tc.class)
			if tc.rule != "" {
				assert.Contains(t, err.Error(), tc.rule)
			}
			// New returns the same error, unwrapped.
			l, nerr := adaptivelimit.New(c, policy.Env{})
			assert.Nil(t, l)
			var fe *policy.FieldError
			require.True(t, errors.As(nerr, &fe))
			assert.Equal(t, nerr, error(fe), "New must return the FieldError itself")
			assert.Equal(t, err.Error(), nerr.Error())
		})
	}
}

func TestValidateBoundaries(t *testing.T) {
	ok := []func(*adaptivelimit.Config){
		func(c *adaptivelimit.Config) { c.Window = time.Millisecond },
		func(c *adaptivelimit.Config) { c.Window = time.Hour },
		func(c *adaptivelimit.Config) { c.Smoothing = 1 },
		func(c *adaptivelimit.Config) { c.RTTTolerance = 1 },
		func(c *adaptivelimit.Config) { c.BackoffRatio = 0.5 },
		func(c *adaptivelimit.Config) { c.LowPriorityShare = 1 },
		func(c *adaptivelimit.Config) { c.MinLimit, c.InitialLimit, c.MaxLimit = 5, 5, 5 },
		func(c *adaptivelimit.Config) { c.MaxLimit = 1 << 30 },
		func(c *adaptivelimit.Config) { c.Algorithm = adaptivelimit.Little },
	}
	for i, set := range ok {
		var c adaptivelimit.Config
		set(&c)
		assert.NoError(t, c.WithDefaults().Validate(), "case %d", i)
	}
}

func TestNewNeverPanics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := adaptivelimit.Config{
			Algorithm:        adaptivelimit.Algorithm(rapid.Uint8Range(0, 5).Draw(t, "alg")),
			InitialLimit:     rapid.IntRange(-3, 300).Draw(t, "initial"),
			MinLimit:         rapid.IntRange(-3, 300).Draw(t, "min"),
			MaxLimit:         rapid.IntRange(-3, 300).Draw(t, "max"),
			Window:           time.Duration(rapid.Int64Range(-int64(time.Second), int64(2*time.Hour)).Draw(t, "window")),
			MinWindowSamples: rapid.IntRange(-3, 30).Draw(t, "mws"),
			Smoothing:        rapid.Float64Range(-1, 2).Draw(t, "smoothing"),
			RTTTolerance:     rapid.Float64Range(-1, 3).Draw(t, "tol"),
			LongWindow:       rapid.IntRange(-3, 700).Draw(t, "long"),
			QueueSize:        rapid.IntRange(-3, 10).Draw(t, "queue"),
			BackoffRatio:     rapid.Float64Range(-1, 2).Draw(t, "backoff"),
			ProbeMultiplier:  rapid.IntRange(-3, 40).Draw(t, "probe"),
			MaxWait:          time.Duration(rapid.Int64Range(-10, 10).Draw(t, "maxWait")),
			LatencyCeiling:   time.Duration(rapid.Int64Range(-10, 10).Draw(t, "ceiling")),
			LowPriorityShare: rapid.Float64Range(-1, 2).Draw(t, "share"),
		}
		l, err := adaptivelimit.New(c, policy.Env{})
		if err != nil {
			var fe *policy.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("New returned %T, want *policy.FieldError", err)
			}
			if l != nil {
				t.Fatal("New returned a limiter with an error")
			}
			return
		}
		d := l.Handle().Config()
		if d.MinLimit > d.InitialLimit || d.InitialLimit > d.MaxLimit || l.Handle().Limit() != d.InitialLimit {
			t.Fatalf("accepted bad bounds: %+v", d)
		}
	})
}

func TestAlgorithmString(t *testing.T) {
	assert.Equal(t, "gradient2", adaptivelimit.Gradient2.String())
	assert.Equal(t, "aimd", adaptivelimit.AIMD.String())
	assert.Equal(t, "vegas", adaptivelimit.Vegas.String())
	assert.Equal(t, "little", adaptivelimit.Little.String())
	assert.Equal(t, "unknown", adaptivelimit.Algorithm(7).String())
	assert.Equal(t, "low", adaptivelimit.PriorityLow.String())
	assert.Equal(t, "normal", adaptivelimit.PriorityNormal.String())
	assert.Equal(t, "high", adaptivelimit.PriorityHigh.String())
	assert.Equal(t, "priority(5)", adaptivelimit.Priority(5).String())
	assert.Equal(t, "success", adaptivelimit.OutcomeSuccess.String())
	assert.Equal(t, "drop", adaptivelimit.OutcomeDrop.String())
	assert.Equal(t, "ignore", adaptivelimit.OutcomeIgnore.String())
}
