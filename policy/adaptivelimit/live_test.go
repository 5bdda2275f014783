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
