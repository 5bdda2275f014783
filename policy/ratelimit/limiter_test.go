package ratelimit_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigDefaults(t *testing.T) {
	c := ratelimit.Config{}.WithDefaults()
	assert.Equal(t, ratelimit.Config{Limit: 50, Period: time.Second, Burst: 50,
		StoreTimeout: 50 * time.Millisecond, FallbackShare: 1, ProbeInterval: time.Second, Lease: 1, LeaseFor: time.Second}, c)
	assert.NoError(t, c.Validate())
	c = ratelimit.Config{Limit: 10}.WithDefaults()
	assert.Equal(t, 10, c.Burst, "burst follows limit")
	c = ratelimit.Config{Limit: 10, Burst: 3, Period: time.Minute, MaxWait: time.Second}.WithDefaults()
	assert.Equal(t, ratelimit.Config{Limit: 10, Burst: 3, Period: time.Minute, MaxWait: time.Second,
		StoreTimeout: 50 * time.Millisecond, FallbackShare: 1, ProbeInterval: time.Second, Lease: 1, LeaseFor: time.Second}, c)
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		cfg   ratelimit.Config
		key   string
		value string
		class policy.Class
	}{
		{ratelimit.Config{Limit: -1}, "limit", "-1", policy.ClassBound},
		{ratelimit.Config{Period: -time.Second}, "period", "-1s", policy.ClassDuration},
		{ratelimit.Config{Burst: -2}, "burst", "-2", policy.ClassBound},
		{ratelimit.Config{MaxWait: -time.Millisecond}, "maxWait", "-1ms", policy.ClassDuration},
		{ratelimit.Config{Limit: 10, Period: 5}, "limit", "10", policy.ClassCombination},
		{ratelimit.Config{Limit: 1, Period: time.Hour, Burst: math.MaxInt}, "burst", policy.Int(math.MaxInt), policy.ClassCombination},
	}
	for _, c := range cases {
		_, err := ratelimit.New(c.cfg, policy.Env{})
		var fe *policy.FieldError
		require.ErrorAs(t, err, &fe, "%+v", c.cfg)
		assert.Equal(t, c.key, fe.Key)
		assert.Equal(t, c.value, fe.Value)
		assert.Equal(t, c.class, fe.Class)
		assert.Equal(t, err, error(fe))
	}
	var fe *policy.FieldError
	require.ErrorAs(t, ratelimit.Config{}.Validate(), &fe, "Validate checks final values")
	assert.Equal(t, "limit", fe.Key)
	// One permit per nanosecond is the finest rate.
	_, err := ratelimit.New(ratelimit.Config{Limit: 5, Period: 5}, policy.Env{})
	assert.NoError(t, err)
}

func TestRateLimitedError(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 2, Period: time.Second})
	require.True(t, f.l.Allow())
	require.True(t, f.l.Allow())
	err := f.l.Wait(context.Background())
	assert.ErrorIs(t, err, ratelimit.ErrRateLimited)
	assert.ErrorIs(t, err, policy.ErrRejected)
	assert.False(t, policy.CallerCancelled(context.Background(), err))
	var re *ratelimit.RateLimitedError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "api", re.InstanceID())
	assert.Equal(t, "r4c: rate limited: 2 per 1s (ratelimit api)", err.Error())
	assert.Equal(t, 500*time.Millisecond, re.RetryAfter())
	f.clk.Advance(200 * time.Millisecond)
	assert.Equal(t, 300*time.Millisecond, re.RetryAfter(), "computed when asked")
	f.clk.Advance(300 * time.Millisecond)
	assert.Zero(t, re.RetryAfter())
	require.NoError(t, f.l.Wait(context.Background()), "the permit that came free")
	assert.Same(t, re, f.l.Wait(context.Background()), "preallocated")
	assert.Equal(t, 500*time.Millisecond, re.RetryAfter())

	l, _ := ratelimit.New(ratelimit.Config{Limit: 1, Period: time.Minute}, policy.Env{})
	l.Allow()
	assert.Equal(t, "r4c: rate limited: 1 per 1m0s", l.Wait(context.Background()).Error())
}

// GCRA, exactly: Burst permits at once, then one every Period/Limit.
func TestPermitsOverTime(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 2, Period: time.Second})
	assert.Equal(t, 2, f.l.Available())
	assert.True(t, f.l.Allow())
	assert.Equal(t, 1, f.l.Available())
	assert.True(t, f.l.Allow())
	assert.Zero(t, f.l.Available())
	okNow, retry := f.l.AllowAt(f.clk.Nanotime())
	assert.False(t, okNow)
	assert.Equal(t, 500*time.Millisecond, retry)
	f.clk.Advance(499 * time.Millisecond)
	assert.Equal(t, time.Millisecond, f.l.RetryAfter())
	assert.False(t, f.l.Allow())
	f.clk.Advance(time.Millisecond)
	assert.Equal(t, 1, f.l.Available())
	assert.True(t, f.l.Allow())
	assert.False(t, f.l.Allow())
	f.clk.Advance(10 * time.Second) // a quiet spell refills up to Burst, no more
	assert.Equal(t, 2, f.l.Available())
	assert.Equal(t, int64(3), f.h.Snapshot().Rejections)
}

func TestSmallBurst(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 10, Period: time.Second, Burst: 1})
	assert.True(t, f.l.Allow())
	assert.False(t, f.l.Allow())
	f.clk.Advance(100 * time.Millisecond)
	assert.True(t, f.l.Allow())
	f.clk.Advance(time.Second)
	assert.Equal(t, 1, f.l.Available())
}

func TestLargeBurst(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1, Period: time.Second, Burst: 5})
	for i := range 5 {
		assert.True(t, f.l.Allow(), "permit %d", i)
	}
	assert.False(t, f.l.Allow())
	assert.Equal(t, time.Second, f.l.RetryAfter())
}

// Over a long run the limiter admits exactly Burst + elapsed/interval.
func TestSteadyRate(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 7, Period: time.Second, Burst: 3})
	interval := time.Second / 7
	admitted := 0
	const step = time.Millisecond
	const total = 10 * time.Second
	for elapsed := time.Duration(0); elapsed <= total; elapsed += step {
		for f.l.Allow() {
			admitted++
		}
		f.clk.Advance(step)
	}
	assert.Equal(t, 3+int(total/interval), admitted)
}

// A reading older than one another caller used counts as that later time.
func TestStaleReading(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1, Period: time.Second, Burst: 1})
	now := f.clk.Nanotime()
	ok, _ := f.l.AllowAt(now + int64(time.Second))
	assert.True(t, ok)
	ok, retry := f.l.AllowAt(now)
	assert.False(t, ok)
	assert.Equal(t, 2*time.Second, retry, "until the permit after the one taken at +1s")
	assert.Zero(t, f.l.AvailableAt(now+int64(time.Second)))
	assert.Equal(t, 1, f.l.AvailableAt(now+int64(2*time.Second)))
	assert.Equal(t, time.Second, f.l.RetryAfterAt(now+int64(time.Second)))
}

func TestStageUsesSharedReading(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 2, Period: time.Second})
	require.True(t, f.l.Allow())
	require.True(t, f.l.Allow())
	// The clock still reads the start, but an outer stage read it 500ms
	// later: the stage uses that reading, and a permit is free then.
	p := &probe{end: policy.Stamp(1)}
	at := f.clk.Nanotime() + int64(500*time.Millisecond)
	v, end, err := f.next(p).WithStart(at).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "ok", v)
	assert.Equal(t, policy.Stamp(at), p.start, "passed inward unchanged")
	assert.Equal(t, policy.Stamp(1), end, "inner end reading passed upward")

	// Without a shared reading it reads the clock and passes its reading in.
	f.clk.Advance(2 * time.Second)
	_, _, err = f.next(p).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, policy.Stamp(int64(2*time.Second)), p.start)
	assert.Empty(t, f.rec.All(), "admitted calls publish nothing")
}

func TestStageRejects(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1, Period: time.Second})
	p := &probe{end: policy.NoStamp}
	_, _, err := f.next(p).Run(context.Background())
	require.NoError(t, err)
	_, end, err := f.next(p).Run(context.Background())
	var re *ratelimit.RateLimitedError
	require.ErrorAs(t, err, &re)
	assert.False(t, end.OK())
	assert.Equal(t, 1, p.calls, "a refused call goes no further")
	assert.Equal(t, []events.Event{events.CallRejected{Policy: "ratelimit", Instance: "api", Err: re}}, f.rec.All())
	assert.Equal(t, ratelimit.Snapshot{Limit: 1, Period: time.Second, Burst: 1, Available: 0, Rejections: 1}, f.h.Snapshot())
	assert.Zero(t, f.clk.Pending())
}

func TestStageWaits(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1, Period: time.Second, MaxWait: time.Second})
	require.True(t, f.l.Allow())
	p := &probe{end: policy.NoStamp}
	res := make(chan error, 1)
	go func() {
		_, _, err := f.next(p).WithStart(f.clk.Nanotime()).Run(context.Background())
		res <- err
	}()
	blockUntil(t, f.clk, 1)
	f.clk.Advance(999 * time.Millisecond)
	assert.Len(t, res, 0)
	f.clk.Advance(time.Millisecond)
	require.NoError(t, recv(t, res))
	assert.False(t, p.start.OK(), "after a wait the stage passes a fresh next")
	assert.Zero(t, f.h.Snapshot().Rejections)
	assert.Zero(t, f.l.Available())
	assert.Zero(t, f.clk.Pending())
}

func TestWaitBeyondMaxWaitRejectsAtOnce(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1, Period: 2 * time.Second, MaxWait: time.Second})
	require.True(t, f.l.Allow())
	err := f.l.Wait(context.Background())
	assert.ErrorIs(t, err, ratelimit.ErrRateLimited)
	assert.Zero(t, f.clk.Pending(), "no wait in vain")
	assert.Equal(t, 2*time.Second, f.l.RetryAfter(), "nothing taken")
	f.clk.Advance(time.Second)
	res := make(chan error, 1)
	go func() { res <- f.l.Wait(context.Background()) }() // now within MaxWait
	blockUntil(t, f.clk, 1)
	f.clk.Advance(time.Second)
	assert.NoError(t, recv(t, res))
}

func TestWaitBeyondDeadlineRejectsAtOnce(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1, Period: time.Second, MaxWait: time.Hour})
	require.True(t, f.l.Allow())
	ctx, cancel := f.clk.WithDeadline(context.Background(), clocktest.Start.Add(999*time.Millisecond))
	defer cancel()
	err := f.l.Wait(ctx)
	assert.ErrorIs(t, err, ratelimit.ErrRateLimited)
	assert.Equal(t, time.Second, f.l.RetryAfter(), "nothing taken")
	assert.Equal(t, int64(1), f.h.Snapshot().Rejections)
}

func TestWaitCancelledGivesPermitBack(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1, Period: time.Second, Burst: 2, MaxWait: time.Hour})
	require.True(t, f.l.Allow())
	require.True(t, f.l.Allow())
	before := f.l.RetryAfter()
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	called := false
	go func() {
		_, _, err := policy.NewNext([]policy.Link[string]{f.st}, func(context.Context) (string, error) {
			called = true
			return "", nil
		}, nil).Run(ctx)
		res <- err
	}()
	blockUntil(t, f.clk, 1)
	assert.Equal(t, 2*time.Second, f.l.RetryAfter(), "the waiter holds the next permit")
	cancel()
	err := recv(t, res)
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, ratelimit.ErrRateLimited)
	assert.False(t, called)
	assert.Equal(t, before, f.l.RetryAfter(), "the permit came back")
	assert.Zero(t, f.h.Snapshot().Rejections)
	assert.Zero(t, f.clk.Pending())

	// A done ctx does not wait; a free permit is taken regardless.
	assert.ErrorIs(t, f.l.Wait(ctx), context.Canceled)
	f.clk.Advance(time.Second)
	assert.NoError(t, f.l.Wait(ctx))
}

// Giving a permit back never fills the bucket beyond Burst.
func TestGiveBackAfterRefill(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1, Period: time.Second, Burst: 1, MaxWait: time.Hour})
	require.True(t, f.l.Allow())
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() { res <- f.l.Wait(ctx) }()
	blockUntil(t, f.clk, 1)
	cancel()
	require.ErrorIs(t, recv(t, res), context.Canceled)
	f.clk.Advance(time.Hour)
	assert.Equal(t, 1, f.l.Available())
	assert.True(t, f.l.Allow())
	assert.False(t, f.l.Allow())
}

func TestDisabled(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1, Disabled: true})
	for range 5 {
		assert.True(t, f.l.Allow())
		assert.NoError(t, f.l.Wait(context.Background()))
		_, _, err := f.next(nil).Run(context.Background())
		assert.NoError(t, err)
	}
	assert.Zero(t, f.h.Snapshot().Rejections)
}

func TestHandle(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 4, Period: time.Second, Burst: 2, MaxWait: time.Millisecond})
	assert.Equal(t, ratelimit.Snapshot{Limit: 4, Period: time.Second, Burst: 2, MaxWait: time.Millisecond, Available: 2}, f.h.Snapshot())
	f.l.Allow()
	assert.Equal(t, 1, f.h.Available())
}

func TestSystemClockDefault(t *testing.T) {
	l, err := ratelimit.New(ratelimit.Config{Limit: 1, Period: time.Hour}, policy.Env{})
	require.NoError(t, err)
	assert.True(t, l.Allow())
	assert.False(t, l.Allow())
	assert.InDelta(t, float64(time.Hour), float64(l.RetryAfter()), float64(time.Minute))
}

// A panic inside goes on through the stage; the permit was spent when
// taken, so there is nothing to give back.
func TestStagePanic(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 2, Period: time.Second})
	next := policy.NewNext([]policy.Link[string]{f.st}, func(context.Context) (string, error) { panic("kaboom") }, nil)
	assert.PanicsWithValue(t, "kaboom", func() { next.Run(context.Background()) })
	assert.Equal(t, 1, f.l.Available())
	assert.Zero(t, f.h.Snapshot().Rejections)
}
