package adaptivelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/internal/testkit"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

func configChanges(g *eventLog) []events.ConfigChanged {
	var out []events.ConfigChanged
	for _, e := range g.all() {
		if c, ok := e.(events.ConfigChanged); ok {
			out = append(out, c)
		}
	}
	return out
}

// A lower maxLimit clamps the limit at once; the calls in flight finish,
// and new calls are rejected until fewer than the new limit are in flight.
func TestSetMaxLimitClampsAndDrains(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 10, MinLimit: 1, MaxLimit: 20})
	ps := f.acquire(8)
	require.NoError(t, f.h.SetMaxLimit(5))
	assert.Equal(t, 5, f.h.Limit())
	assert.Equal(t, 8, f.h.InFlight(), "nothing interrupted")
	_, ok := f.l.TryAcquire()
	assert.False(t, ok)
	f.releaseAll(ps[:3], adaptivelimit.OutcomeIgnore)
	_, ok = f.l.TryAcquire()
	assert.False(t, ok, "5 in flight, limit 5")
	f.l.Release(ps[3], adaptivelimit.OutcomeIgnore)
	p, ok := f.l.TryAcquire()
	assert.True(t, ok, "the exact moment one more ended")
	f.releaseAll(append(ps[4:], p), adaptivelimit.OutcomeIgnore)

	s := f.h.Snapshot()
	assert.Equal(t, 5, s.MaxLimit)
	assert.Equal(t, 5, s.Limit)
	assert.Equal(t, 5, f.h.Config().MaxLimit)
	assert.Equal(t, []events.ConfigChanged{{Policy: "adaptivelimit", Instance: "backend",
		Changes: []events.KeyChange{{Key: "initialLimit", Old: "10", New: "5"}, {Key: "maxLimit", Old: "20", New: "5"}}}},
		configChanges(f.log), "initialLimit, for a limit built later, moves into the bounds")
}

// A higher minLimit raises the limit at once, and the estimate with it, so
// the next window starts from there.
func TestSetMinLimitRaises(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.Gradient2, InitialLimit: 10, MinLimit: 1, MaxLimit: 50})
	require.NoError(t, f.h.SetMinLimit(15))
	assert.Equal(t, 15, f.h.Limit())
	assert.Equal(t, 15.0, f.h.Snapshot().EstimatedLimit)
	ps := f.acquire(15)
	_, ok := f.l.TryAcquire()
	assert.False(t, ok)
	f.releaseAll(ps, adaptivelimit.OutcomeIgnore)
}

// Bounds that cross: SetLimits moves both as one change; one at a time
// is refused, and nothing changes.
func TestSetLimitsAndRefusals(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 10, MinLimit: 5, MaxLimit: 20})
	before := f.h.Snapshot()
	var fe *policy.FieldError
	require.True(t, errors.As(f.h.SetMinLimit(30), &fe))
	assert.Equal(t, policy.ClassOrder, fe.Class)
	require.True(t, errors.As(f.h.SetMaxLimit(0), &fe))
	assert.Equal(t, policy.ClassBound, fe.Class)
	c := f.h.Config()
	c.Algorithm = adaptivelimit.Vegas
	c.MaxLimit = 30
	require.True(t, errors.As(f.h.Reconfigure(c), &fe))
	assert.Equal(t, "algorithm", fe.Key)
	assert.Equal(t, policy.ClassNotLive, fe.Class)
	assert.Equal(t, before, f.h.Snapshot())
	assert.Empty(t, configChanges(f.log))

	require.NoError(t, f.h.SetLimits(40, 60))
	assert.Equal(t, 40, f.h.Limit())
	assert.Equal(t, []string{"initialLimit", "minLimit", "maxLimit"}, configChanges(f.log)[0].Keys())
}

// Raising the limit hands the new slots to the calls waiting under
// MaxWait, at once.
func TestRaisedLimitAdmitsWaiters(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 1, MinLimit: 1, MaxLimit: 10, MaxWait: time.Minute})
	held := f.acquire(1)
	got := make(chan error, 1)
	go func() {
		p, err := f.l.Acquire(context.Background())
		if err == nil {
			defer f.l.Release(p, adaptivelimit.OutcomeIgnore)
		}
		got <- err
	}()
	testkit.BlockUntil(t, f.clk, 1)
	require.NoError(t, f.h.SetMinLimit(2))
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter was not admitted")
	}
	f.releaseAll(held, adaptivelimit.OutcomeIgnore)
}

// window applies from the next window: the window in progress ends when it
// was due, the one after lasts the new length.
func TestWindowFromTheNextWindow(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 10, MinLimit: 1, MaxLimit: 20,
		Window: time.Second, MinWindowSamples: 1})
	f.advanceTo(500 * time.Millisecond)
	c := f.h.Config()
	c.Window = 2 * time.Second
	c.LatencyCeiling = time.Hour
	require.NoError(t, f.h.Reconfigure(c))
	sample := func() {
		f.l.Release(f.acquire(1)[0], adaptivelimit.OutcomeSuccess)
	}
	f.advanceTo(time.Second - time.Nanosecond)
	sample()
	assert.Zero(t, f.h.Snapshot().Windows)
	f.advanceTo(time.Second)
	sample()
	assert.EqualValues(t, 1, f.h.Snapshot().Windows, "the window in progress ends when it was due")
	f.advanceTo(3*time.Second - time.Nanosecond)
	sample()
	assert.EqualValues(t, 1, f.h.Snapshot().Windows)
	f.advanceTo(3 * time.Second)
	sample()
	assert.EqualValues(t, 2, f.h.Snapshot().Windows, "the next window lasts 2s")
	assert.Equal(t, []string{"window", "latencyCeiling"}, configChanges(f.log)[0].Keys())
}

// The algorithm's tuning applies from the next window end: backoffRatio
// decides the cut of the window that ends after the change.
func TestBackoffRatioAtTheNextWindowEnd(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 20, MinLimit: 1, MaxLimit: 100,
		Window: time.Second, MinWindowSamples: 1, BackoffRatio: 0.9})
	f.driveWindow(time.Second, windowSpec{concurrent: 2, latency: 10 * time.Millisecond, drops: 1})
	require.Equal(t, 18, f.h.Limit(), "20 * 0.9")
	require.NoError(t, f.h.Update(func(c *adaptivelimit.Config) { c.BackoffRatio = 0.5 }))
	assert.Equal(t, 18, f.h.Limit(), "not before the window ends")
	f.driveWindow(time.Second, windowSpec{concurrent: 2, latency: 10 * time.Millisecond, drops: 1})
	assert.Equal(t, 9, f.h.Limit(), "18 * 0.5")
}

// minWindowSamples: a window with fewer samples is pushed out, by the new
// number from the next window end.
func TestMinWindowSamplesAtTheNextWindowEnd(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 20, MinLimit: 1, MaxLimit: 100,
		Window: time.Second, MinWindowSamples: 1})
	require.NoError(t, f.h.Update(func(c *adaptivelimit.Config) { c.MinWindowSamples = 5 }))
	f.driveWindow(time.Second, windowSpec{concurrent: 2, latency: 10 * time.Millisecond}) // 3 samples
	assert.Zero(t, f.h.Snapshot().Windows, "3 samples < 5: the window goes on")
	f.driveWindow(time.Second, windowSpec{concurrent: 1, latency: 10 * time.Millisecond}) // 5 in all
	assert.EqualValues(t, 1, f.h.Snapshot().Windows)
}

// latencyCeiling: the next window whose latency passes it is overload, a
// cut for AIMD.
func TestLatencyCeilingAtTheNextWindowEnd(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 20, MinLimit: 1, MaxLimit: 100,
		Window: time.Second, MinWindowSamples: 1, BackoffRatio: 0.5})
	f.driveWindow(time.Second, windowSpec{concurrent: 2, latency: 100 * time.Millisecond})
	require.False(t, f.h.Snapshot().Overloaded)
	require.Equal(t, 20, f.h.Limit())
	require.NoError(t, f.h.Update(func(c *adaptivelimit.Config) { c.LatencyCeiling = 50 * time.Millisecond }))
	f.driveWindow(time.Second, windowSpec{concurrent: 2, latency: 100 * time.Millisecond})
	assert.True(t, f.h.Snapshot().Overloaded)
	assert.Equal(t, 10, f.h.Limit())
}

// lowPriorityShare applies to the next call admitted.
func TestLowPriorityShareAtOnce(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 10, MinLimit: 1, MaxLimit: 100,
		LowPriorityShare: 1})
	low := adaptivelimit.WithPriority(context.Background(), adaptivelimit.PriorityLow)
	ps := f.acquire(5)
	p, err := f.l.Acquire(low)
	require.NoError(t, err, "share 1: low priority up to the limit")
	ps = append(ps, p)
	require.NoError(t, f.h.Update(func(c *adaptivelimit.Config) { c.LowPriorityShare = 0.5 }))
	_, err = f.l.Acquire(low)
	require.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded, "6 in flight >= half of 10")
	p, err = f.l.Acquire(context.Background())
	require.NoError(t, err, "normal priority still up to the limit")
	f.releaseAll(append(ps, p), adaptivelimit.OutcomeIgnore)
}
