package breaker_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/breaker"
)

func TestDefaults(t *testing.T) {
	c := breaker.Config{}.WithDefaults()
	assert.Equal(t, breaker.Config{
		WindowType:            breaker.CountBased,
		WindowSize:            100,
		WindowDuration:        60 * time.Second,
		MinimumCalls:          100,
		FailureRateThreshold:  0.5,
		SlowCallRateThreshold: 1,
		SlowCallDuration:      60 * time.Second,
		OpenFor:               60 * time.Second,
		HalfOpenCalls:         10,
	}, c)
	require.NoError(t, c.Validate())
	set := breaker.Config{WindowType: breaker.TimeBased, WindowSize: 5, WindowDuration: time.Second, MinimumCalls: 3,
		FailureRateThreshold: 0.2, SlowCallRateThreshold: 0.3, SlowCallDuration: time.Millisecond, OpenFor: time.Minute,
		HalfOpenCalls: 2, MaxHalfOpenWait: time.Second}
	assert.Equal(t, set, set.WithDefaults())
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg   breaker.Config
		key   string
		value string
		class policy.Class
	}{
		{breaker.Config{WindowType: 5}, "windowType", "5", policy.ClassRange},
		{breaker.Config{WindowSize: -1}, "windowSize", "-1", policy.ClassBound},
		{breaker.Config{WindowSize: 1_000_001}, "windowSize", "1000001", policy.ClassOrder},
		{breaker.Config{WindowDuration: -time.Second}, "windowDuration", "-1s", policy.ClassDuration},
		{breaker.Config{WindowDuration: time.Microsecond}, "windowDuration", "1µs", policy.ClassOrder},
		{breaker.Config{WindowDuration: 25 * time.Hour}, "windowDuration", "25h0m0s", policy.ClassOrder},
		{breaker.Config{MinimumCalls: -3}, "minimumCalls", "-3", policy.ClassBound},
		{breaker.Config{FailureRateThreshold: -1}, "failureRateThreshold", "-1", policy.ClassRange},
		{breaker.Config{FailureRateThreshold: 1.005}, "failureRateThreshold", "1.005", policy.ClassRange},
		{breaker.Config{FailureRateThreshold: 50}, "failureRateThreshold", "50", policy.ClassRange},
		{breaker.Config{FailureRateThreshold: math.NaN()}, "failureRateThreshold", "NaN", policy.ClassRange},
		{breaker.Config{SlowCallRateThreshold: 1.01}, "slowCallRateThreshold", "1.01", policy.ClassRange},
		{breaker.Config{SlowCallDuration: -time.Second}, "slowCallDuration", "-1s", policy.ClassDuration},
		{breaker.Config{OpenFor: -time.Second}, "openFor", "-1s", policy.ClassDuration},
		{breaker.Config{HalfOpenCalls: -1}, "halfOpenCalls", "-1", policy.ClassBound},
		{breaker.Config{HalfOpenCalls: 1_000_001}, "halfOpenCalls", "1000001", policy.ClassRange},
		{breaker.Config{MaxHalfOpenWait: -time.Second}, "maxHalfOpenWait", "-1s", policy.ClassDuration},
	} {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			err := tc.cfg.WithDefaults().Validate()
			var fe *policy.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.key, fe.Key)
			assert.Equal(t, tc.value, fe.Value)
			assert.Equal(t, tc.class, fe.Class)
			assert.NotEmpty(t, fe.Rule)

			b, err := breaker.New(tc.cfg, policy.Env{})
			assert.Nil(t, b)
			ne, isFE := err.(*policy.FieldError)
			require.True(t, isFE, "New returns the FieldError unwrapped, got %T", err)
			assert.Equal(t, *fe, *ne)
		})
	}
}

func TestValidEdges(t *testing.T) {
	for _, c := range []breaker.Config{
		{WindowSize: 1},
		{WindowSize: 1_000_000},
		{WindowDuration: time.Millisecond},
		{WindowDuration: 24 * time.Hour},
		{FailureRateThreshold: 1},
		{FailureRateThreshold: 0.00001},
		{SlowCallRateThreshold: 1},
		{HalfOpenCalls: 1},
		{HalfOpenCalls: 1_000_000},
		{MinimumCalls: 1_000_000}, // above WindowSize: a count-based window uses WindowSize
	} {
		assert.NoError(t, c.WithDefaults().Validate(), "%+v", c)
	}
}

func TestText(t *testing.T) {
	for wt, name := range map[breaker.WindowType]string{breaker.CountBased: "count-based", breaker.TimeBased: "time-based"} {
		assert.Equal(t, name, wt.String())
		b, err := wt.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, name, string(b))
	}
	for in, want := range map[string]breaker.WindowType{
		"count-based": breaker.CountBased, "COUNT_BASED": breaker.CountBased, "count": breaker.CountBased,
		"time-based": breaker.TimeBased, " TIME_BASED ": breaker.TimeBased, "Time": breaker.TimeBased,
	} {
		var wt breaker.WindowType = 9
		require.NoError(t, wt.UnmarshalText([]byte(in)), in)
		assert.Equal(t, want, wt, in)
	}
	var wt breaker.WindowType
	var fe *policy.FieldError
	require.ErrorAs(t, wt.UnmarshalText([]byte("sliding")), &fe)
	assert.Equal(t, "windowType", fe.Key)
	assert.Equal(t, policy.ClassRange, fe.Class)
	_, err := breaker.WindowType(7).MarshalText()
	assert.Error(t, err)
	assert.Equal(t, "unknown", breaker.WindowType(7).String())

	for s, name := range map[breaker.State]string{
		breaker.StateClosed: "closed", breaker.StateOpen: "open", breaker.StateHalfOpen: "half-open",
		breaker.StateDisabled: "disabled", breaker.StateForcedOpen: "forced-open", breaker.State(42): "unknown",
	} {
		assert.Equal(t, name, s.String())
		b, _ := s.MarshalText()
		assert.Equal(t, name, string(b))
	}
}
