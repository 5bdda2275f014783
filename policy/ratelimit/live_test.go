package ratelimit_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

func changes(rec *recorder) []events.ConfigChanged {
	var out []events.ConfigChanged
	for _, e := range rec.All() {
		if c, ok := e.(events.ConfigChanged); ok {
			out = append(out, c)
		}
	}
	return out
}

// A new limit spaces the next permit at the new rate: the permits free at
// the change stay free, the rest come back at the new rate.
func TestSetLimitFromTheNextPermit(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 10, Period: time.Second, Burst: 1}) // one permit per 100ms
	require.True(t, f.l.Allow())
	require.False(t, f.l.Allow())
	f.clk.Advance(50 * time.Millisecond) // half a permit back at 10/s

	require.NoError(t, f.h.SetLimit(1)) // one per second: half a permit is 500ms of the new rate
	assert.Equal(t, 500*time.Millisecond, f.l.RetryAfter())
	f.clk.Advance(499 * time.Millisecond)
	assert.False(t, f.l.Allow(), "a millisecond early")
	f.clk.Advance(time.Millisecond)
	assert.True(t, f.l.Allow(), "at the exact moment")
	assert.Equal(t, time.Second, f.l.RetryAfter(), "the next at the new rate")

	require.NoError(t, f.h.SetLimit(100)) // 10ms per permit
	assert.Equal(t, 10*time.Millisecond, f.l.RetryAfter())
	f.clk.Advance(10 * time.Millisecond)
	assert.True(t, f.l.Allow())

	s := f.h.Snapshot()
	assert.Equal(t, 100, s.Limit)
	assert.Equal(t, 100, f.h.Config().Limit)
	got := changes(f.rec)
	require.Len(t, got, 2)
	assert.Equal(t, events.ConfigChanged{Policy: "ratelimit", Instance: "api",
		Changes: []events.KeyChange{{Key: "limit", Old: "10", New: "1"}}}, got[0])
	assert.Equal(t, []string{"limit"}, got[1].Keys())
	assert.Equal(t, "r4c: rate limited: 100 per 1s (ratelimit api)", f.l.Wait(context.Background()).Error())
}

func TestSetRateChangesThePeriod(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 2, Period: time.Second})
	require.True(t, f.l.Allow())
	require.True(t, f.l.Allow())
	require.False(t, f.l.Allow())
	require.NoError(t, f.h.SetRate(2, 100*time.Millisecond)) // 50ms per permit, bucket of 2 empty
	assert.Equal(t, 50*time.Millisecond, f.l.RetryAfter())
	f.clk.Advance(49 * time.Millisecond)
	assert.False(t, f.l.Allow())
	f.clk.Advance(time.Millisecond)
	assert.True(t, f.l.Allow())
	assert.Equal(t, 100*time.Millisecond, f.h.Snapshot().Period)
}

// SetBurst keeps the permits free now, like x/time/rate: a smaller bucket
// is clamped, a larger one fills up at the rate.
func TestSetBurstKeepsTheFreePermits(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 10, Period: time.Second, Burst: 4})
	require.True(t, f.l.Allow())
	assert.Equal(t, 3, f.l.Available())

	require.NoError(t, f.h.SetBurst(2))
	assert.Equal(t, 2, f.l.Available(), "clamped to the new burst")

	require.NoError(t, f.h.SetBurst(6))
	assert.Equal(t, 2, f.l.Available(), "not granted at once")
	f.clk.Advance(399 * time.Millisecond)
	assert.Equal(t, 5, f.l.Available())
	f.clk.Advance(time.Millisecond)
	assert.Equal(t, 6, f.l.Available(), "full after 4 intervals")
	f.clk.Advance(time.Hour)
	assert.Equal(t, 6, f.l.Available())
	for range 6 {
		require.True(t, f.l.Allow())
	}
	assert.False(t, f.l.Allow())
}

func TestSetMaxWaitFromTheNextWaiter(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 10, Period: time.Second, Burst: 1})
	require.True(t, f.l.Allow())
	var rl *ratelimit.RateLimitedError
	require.ErrorAs(t, f.l.Wait(context.Background()), &rl, "maxWait 0: rejected at once")

	require.NoError(t, f.h.SetMaxWait(time.Second))
	done := make(chan error, 1)
	go func() { done <- f.l.Wait(context.Background()) }()
	blockUntil(t, f.clk, 1)
	f.clk.Advance(100 * time.Millisecond)
	require.NoError(t, recv(t, done))
	assert.Equal(t, time.Second, f.h.Snapshot().MaxWait)
}

func TestSettersRefuseBadValuesAndChangeNothing(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 10, Period: time.Second, Burst: 3})
	require.True(t, f.l.Allow())
	before := f.h.Snapshot()
	for _, tc := range []struct {
		name  string
		set   func() error
		key   string
		value string
		class policy.Class
	}{
		{"limit", func() error { return f.h.SetLimit(0) }, "limit", "0", policy.ClassBound},
		{"rate", func() error { return f.h.SetRate(5, 0) }, "period", "0s", policy.ClassDuration},
		{"too fast", func() error { return f.h.SetRate(10, 5) }, "limit", "10", policy.ClassCombination},
		{"burst", func() error { return f.h.SetBurst(-1) }, "burst", "-1", policy.ClassBound},
		{"maxWait", func() error { return f.h.SetMaxWait(-time.Second) }, "maxWait", "-1s", policy.ClassDuration},
		{"enabled", func() error {
			c := f.h.Config()
			c.Disabled = true
			return f.h.Reconfigure(c)
		}, "enabled", "false", policy.ClassNotLive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.set()
			var fe *policy.FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.Equal(t, tc.key, fe.Key)
			assert.Equal(t, tc.value, fe.Value)
			assert.Equal(t, tc.class, fe.Class)
			assert.Equal(t, before, f.h.Snapshot())
		})
	}
	assert.Empty(t, changes(f.rec))
	require.NoError(t, f.h.SetLimit(10), "the same value")
	assert.Empty(t, changes(f.rec), "no change, no event")
}

// Concurrent takers and setters: every permit is taken within one era, no
// taker spins for ever, and after the last change the bucket is exact.
func TestSettersUnderConcurrentTakers(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1000, Period: time.Second, Burst: 50})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					f.l.Allow()
				}
			}
		}()
	}
	for i := range 200 {
		require.NoError(t, f.h.SetRate(100+i, time.Second))
		require.NoError(t, f.h.SetBurst(1+i%20))
	}
	close(stop)
	wg.Wait()
	require.NoError(t, f.h.SetBurst(5))
	f.clk.Advance(time.Hour)
	assert.Equal(t, 5, f.l.Available())
	for range 5 {
		require.True(t, f.l.Allow())
	}
	assert.False(t, f.l.Allow())
}

// Update is one read-modify-write: both keys change in one era and one
// event; Name is not the configuration's to change.
func TestUpdateIsOneChange(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 10, Period: time.Second})
	require.NoError(t, f.h.Update(func(c *ratelimit.Config) {
		c.Limit, c.Burst = 20, 2
		c.Name = "other"
	}))
	cfg := f.h.Config()
	assert.Equal(t, 20, cfg.Limit)
	assert.Equal(t, 2, cfg.Burst)
	assert.Empty(t, cfg.Name)
	got := changes(f.rec)
	require.Len(t, got, 1)
	assert.Equal(t, []string{"limit", "burst"}, got[0].Keys())
	assert.Equal(t, 2, f.l.Available())

	var fe *policy.FieldError
	require.True(t, errors.As(f.h.Update(func(c *ratelimit.Config) { c.Limit = 5; c.Disabled = true }), &fe))
	assert.Equal(t, policy.ClassNotLive, fe.Class)
	assert.Equal(t, 20, f.h.Config().Limit, "nothing of a refused update")
}
