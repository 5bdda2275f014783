package retry_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/retry"
)

func TestDefaults(t *testing.T) {
	c := retry.Config{}.WithDefaults()
	assert.Equal(t, retry.Config{
		MaxAttempts:      3,
		Wait:             500 * time.Millisecond,
		Multiplier:       1,
		BudgetWindow:     10 * time.Second,
		BudgetMinRetries: 10,
	}, c)
	require.NoError(t, c.Validate())

	set := retry.Config{MaxAttempts: 7, Wait: time.Second, Multiplier: 2, MaxDelay: 5 * time.Second,
		Jitter: retry.JitterDecorrelated, BudgetRatio: 0.2, BudgetWindow: time.Minute, BudgetMinRetries: 3}
	assert.Equal(t, set, set.WithDefaults(), "set fields are kept")
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg   retry.Config
		key   string
		value string
		class policy.Class
	}{
		{retry.Config{MaxAttempts: -1}, "maxAttempts", "-1", policy.ClassBound},
		{retry.Config{Wait: -time.Second}, "wait", "-1s", policy.ClassDuration},
		{retry.Config{Multiplier: 0.5}, "multiplier", "0.5", policy.ClassRange},
		{retry.Config{Multiplier: math.NaN()}, "multiplier", "NaN", policy.ClassRange},
		{retry.Config{Multiplier: math.Inf(1)}, "multiplier", "+Inf", policy.ClassRange},
		{retry.Config{MaxDelay: -1}, "maxDelay", "-1ns", policy.ClassDuration},
		{retry.Config{Wait: time.Second, MaxDelay: time.Millisecond}, "maxDelay", "1ms", policy.ClassOrder},
		{retry.Config{Jitter: 9}, "jitter", "9", policy.ClassRange},
		{retry.Config{BudgetRatio: -0.1}, "budgetRatio", "-0.1", policy.ClassRange},
		{retry.Config{BudgetRatio: 1.5}, "budgetRatio", "1.5", policy.ClassRange},
		{retry.Config{BudgetRatio: math.NaN()}, "budgetRatio", "NaN", policy.ClassRange},
		{retry.Config{BudgetWindow: -time.Second}, "budgetWindow", "-1s", policy.ClassDuration},
		{retry.Config{BudgetWindow: time.Microsecond}, "budgetWindow", "1µs", policy.ClassOrder},
		{retry.Config{BudgetWindow: 25 * time.Hour}, "budgetWindow", "25h0m0s", policy.ClassOrder},
		{retry.Config{BudgetMinRetries: -2}, "budgetMinRetries", "-2", policy.ClassBound},
	} {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			err := tc.cfg.WithDefaults().Validate()
			var fe *policy.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.key, fe.Key)
			assert.Equal(t, tc.value, fe.Value)
			assert.Equal(t, tc.class, fe.Class)
			assert.NotEmpty(t, fe.Rule)

			r, err := retry.New(tc.cfg, policy.Env{})
			assert.Nil(t, r)
			ne, isFE := err.(*policy.FieldError)
			require.True(t, isFE, "New returns the FieldError unwrapped, got %T", err)
			assert.Equal(t, *fe, *ne)
		})
	}
}

func TestValidEdges(t *testing.T) {
	for _, c := range []retry.Config{
		{MaxAttempts: 1},
		{Multiplier: 1},
		{Wait: time.Second, MaxDelay: time.Second},
		{BudgetRatio: 1},
		{BudgetWindow: time.Millisecond},
		{BudgetWindow: 24 * time.Hour},
		{BudgetMinRetries: 1},
	} {
		assert.NoError(t, c.WithDefaults().Validate(), "%+v", c)
	}
}

func TestJitterText(t *testing.T) {
	for j, name := range map[retry.Jitter]string{retry.JitterNone: "none", retry.JitterFull: "full", retry.JitterDecorrelated: "decorrelated"} {
		assert.Equal(t, name, j.String())
		b, err := j.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, name, string(b))
		var back retry.Jitter = 7
		require.NoError(t, back.UnmarshalText([]byte(" "+name+" ")))
		assert.Equal(t, j, back)
	}
	var j retry.Jitter
	require.NoError(t, j.UnmarshalText([]byte("FULL")))
	assert.Equal(t, retry.JitterFull, j)
	var fe *policy.FieldError
	require.ErrorAs(t, j.UnmarshalText([]byte("random")), &fe)
	assert.Equal(t, "jitter", fe.Key)
	assert.Equal(t, policy.ClassRange, fe.Class)
	assert.Equal(t, "unknown", retry.Jitter(9).String())
	_, err := retry.Jitter(9).MarshalText()
	assert.Error(t, err)
}
