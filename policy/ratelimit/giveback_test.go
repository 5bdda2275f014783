package ratelimit_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// Issue 10, case 6: a cancelled wait gives back its own reservation, and
// only while no later one has been made. With 1/s and a burst of 1, the
// calls pass at exact times on the manual clock, never two at once.
func TestCancelledWaitGivesBackItsOwnReservation(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1, Period: time.Second, Burst: 1, MaxWait: time.Hour})
	start := f.clk.Now()
	type pass struct {
		name string
		at   time.Duration
		err  error
	}
	passed := make(chan pass, 4)
	wait := func(ctx context.Context, name string) {
		err := f.l.Wait(ctx)
		passed <- pass{name, f.clk.Now().Sub(start), err}
	}

	require.True(t, f.l.Allow()) // A at 0s; the next permit is at 1s
	ctxB, cancelB := context.WithCancel(context.Background())
	go wait(ctxB, "B") // reserves 1s
	blockUntil(t, f.clk, 1)
	go wait(context.Background(), "C") // reserves 2s
	blockUntil(t, f.clk, 2)

	cancelB() // B's reservation is not the last: it cannot go back
	b := recv(t, passed)
	require.Equal(t, "B", b.name)
	require.ErrorIs(t, b.err, context.Canceled)
	blockUntil(t, f.clk, 1)
	go wait(context.Background(), "D") // after C: 3s (before the fix, 2s with C)
	blockUntil(t, f.clk, 2)
	assert.Equal(t, 4*time.Second, f.l.RetryAfter(), "the bucket is empty until D's permit is spent")

	var got []pass
	for range 3 {
		f.clk.Advance(time.Second)
		if f.clk.Pending() < 2-len(got) {
			got = append(got, recv(t, passed))
		}
	}
	require.Len(t, got, 2)
	assert.Equal(t, pass{"C", 2 * time.Second, nil}, got[0])
	assert.Equal(t, pass{"D", 3 * time.Second, nil}, got[1])
	assert.False(t, f.l.Allow(), "D's permit was the last one")
	f.clk.Advance(time.Second)
	assert.True(t, f.l.Allow(), "at 4s")
	assert.Zero(t, f.clk.Pending())

	// The last reservation cancelled goes back whole: the next call takes
	// its time.
	ctxE, cancelE := context.WithCancel(context.Background())
	go wait(ctxE, "E") // reserves 5s
	blockUntil(t, f.clk, 1)
	cancelE()
	require.ErrorIs(t, recv(t, passed).err, context.Canceled)
	assert.Equal(t, time.Second, f.l.RetryAfter(), "E's permit came back")
	f.clk.Advance(time.Second)
	assert.True(t, f.l.Allow(), "at 5s, the time E gave back")
	assert.False(t, f.l.Allow())
	assert.Zero(t, f.clk.Pending())
}

// Issue 10, case 7: a period so long that a reading plus one interval
// overflows int64 is refused with a range error on period; the limits just
// inside are accepted and stay shut, never wrapping around.
func TestPeriodThatOverflowsIsRefused(t *testing.T) {
	for _, c := range []struct {
		cfg   ratelimit.Config
		key   string
		value string
		class policy.Class
	}{
		{ratelimit.Config{Limit: 1, Period: 2562047 * time.Hour}, "period", "2562047h0m0s", policy.ClassRange},
		{ratelimit.Config{Limit: 1, Period: math.MaxInt64}, "period", time.Duration(math.MaxInt64).String(), policy.ClassRange},
		{ratelimit.Config{Limit: 1, Period: 1<<62 + 1}, "period", time.Duration(1<<62 + 1).String(), policy.ClassRange},
		{ratelimit.Config{Limit: 1, Period: 1 << 61, Burst: 3}, "burst", "3", policy.ClassCombination},
	} {
		_, err := ratelimit.New(c.cfg, policy.Env{})
		var fe *policy.FieldError
		require.ErrorAs(t, err, &fe, "%+v", c.cfg)
		assert.Equal(t, c.key, fe.Key)
		assert.Equal(t, c.value, fe.Value)
		assert.Equal(t, c.class, fe.Class)
		assert.Contains(t, fe.Rule, "1281023h53m38.427387904s")
	}

	// The longest accepted: one permit per 2^62ns. After the first, the
	// limiter stays shut however far the clock goes.
	f := newFixture(t, ratelimit.Config{Limit: 1, Period: 1 << 62})
	f.clk.Advance(time.Duration(1<<62) - time.Hour)
	require.True(t, f.l.Allow())
	for range 3 {
		f.clk.Advance(47 * time.Minute)
		assert.False(t, f.l.Allow())
		ok, after := f.l.AllowAt(f.clk.Nanotime())
		assert.False(t, ok)
		assert.Positive(t, after)
	}
}

// Through the registry, the overflowing period is R4C-ATR-005 on its flat
// key, with the value as written and the rule.
func TestPeriodThatOverflowsIsACodedRangeError(t *testing.T) {
	reg, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{"instances.api.rateLimit.period": "2562047h"}))
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[int](reg, "api").RateLimit(func(c *ratelimit.Config) { c.Limit = 1 }).Build()
	var ce *r4c.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, r4c.CodeOutOfRange, ce.Code)
	assert.Equal(t, "instances.api.rateLimit.period", ce.Key)
	assert.Equal(t, "2562047h", ce.Value)
	assert.Contains(t, ce.Rule, "period/limit must be at most")
	assert.ErrorIs(t, err, r4c.ErrConfig)
}
