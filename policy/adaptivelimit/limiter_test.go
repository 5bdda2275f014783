package adaptivelimit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

func TestRejectsWhenFull(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{InitialLimit: 2})
	held := f.acquire(2)
	calls := 0
	fn := func(context.Context) (string, error) { calls++; return "ok", nil }

	_, err1 := f.run(context.Background(), fn)
	_, err2 := f.run(context.Background(), fn)
	assert.Zero(t, calls, "the function must not be called")
	require.Error(t, err1)
	assert.Same(t, err1, err2, "every rejection returns the instance's preallocated error")
	assert.ErrorIs(t, err1, adaptivelimit.ErrLimitExceeded)
	assert.ErrorIs(t, err1, policy.ErrRejected)
	var le *adaptivelimit.LimitExceededError
	require.ErrorAs(t, err1, &le)
	assert.Equal(t, "backend", le.InstanceID())
	assert.Equal(t, "r4c: adaptive limit backend exceeded", err1.Error())
	assert.False(t, le.Is(adaptivelimit.ErrLimitExceeded), "Is is shallow: the sentinel is reached through Unwrap")

	_, ok := f.l.TryAcquire()
	assert.False(t, ok)
	assert.Equal(t, int64(3), f.h.Snapshot().Rejections)
	rej := f.log.rejections()
	require.Len(t, rej, 3)
	assert.Equal(t, events.CallRejected{Policy: "adaptivelimit", Instance: "backend", Err: err1}, rej[0])

	// A freed slot admits the next call.
	f.l.Release(held[0], adaptivelimit.OutcomeIgnore)
	v, err := f.run(context.Background(), fn)
	require.NoError(t, err)
	assert.Equal(t, "ok", v)
	assert.Equal(t, 1, calls)
	assert.Equal(t, 1, f.h.InFlight())
	assert.Len(t, f.log.all(), 3, "admitted calls publish nothing")

	// Without an instance id the message has none.
	l, err := adaptivelimit.New(adaptivelimit.Config{InitialLimit: 1}, policy.Env{})
	require.NoError(t, err)
	l.TryAcquire()
	_, err = l.Acquire(context.Background())
	assert.Equal(t, "r4c: adaptive limit exceeded", err.Error())
}

func TestReleaseMisuse(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{})
	f.l.Release(adaptivelimit.Permit{}, adaptivelimit.OutcomeSuccess) // the zero Permit holds nothing
	assert.Zero(t, f.h.InFlight())
	assert.False(t, adaptivelimit.Permit{}.Held())

	p := f.acquire(1)[0]
	assert.True(t, p.Held())
	f.l.Release(p, adaptivelimit.OutcomeSuccess)
	assert.PanicsWithValue(t, "adaptivelimit: released more slots than were acquired", func() {
		f.l.Release(p, adaptivelimit.OutcomeSuccess)
	})
	assert.Panics(t, func() { f.l.Release(p, adaptivelimit.OutcomeIgnore) })
	assert.Zero(t, f.h.InFlight(), "a refused release leaves the count alone")
	assert.Len(t, f.acquire(20), 20)
}

// TestManualClockReference is the reference page's "Testing it with
// ManualClock" example: two pending async calls fill a limit of 2, a third
// is rejected at once, and completing both after a second ends one window
// whose latency is a second.
func TestManualClockReference(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{InitialLimit: 2, MinWindowSamples: 1})
	pending := map[string]*promise{}
	place := func(order string) func(context.Context) *futureString {
		return func(context.Context) *futureString {
			pr := newPromise()
			pending[order] = pr
			return pr.Future()
		}
	}
	a := f.runAsync(context.Background(), place("a"))
	b := f.runAsync(context.Background(), place("b"))
	c := f.runAsync(context.Background(), place("c"))
	select {
	case <-c.Done():
	default:
		t.Fatal("a full limit must fail the future at once")
	}
	_, err := c.Get(context.Background())
	var le *adaptivelimit.LimitExceededError
	require.ErrorAs(t, err, &le)
	assert.NotContains(t, pending, "c", "the rejected call must not start")
	assert.Equal(t, 2, f.h.InFlight())

	f.clk.Advance(time.Second)
	pending["a"].Complete("placed a")
	pending["b"].Complete("placed b")
	va, erra := a.Get(context.Background())
	vb, errb := b.Get(context.Background())
	require.NoError(t, erra)
	require.NoError(t, errb)
	assert.Equal(t, "placed a", va)
	assert.Equal(t, "placed b", vb)

	s := f.h.Snapshot()
	assert.Equal(t, int64(1), s.Windows)
	assert.Equal(t, time.Second, s.WindowLatency)
	assert.Equal(t, 0, s.InFlight)
	assert.Equal(t, 2, s.MaxInFlight)
	assert.Zero(t, f.clk.Pending(), "the limit schedules nothing on the clock")
}

func TestWindowEndsExactlyAtWindow(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 2})
	_, err := f.run(context.Background(), f.slow(999*time.Millisecond, nil))
	require.NoError(t, err)
	assert.Zero(t, f.h.Snapshot().Windows, "not over before now - start >= Window")

	// The call that ends the window counts its own sample first: with it the
	// window has the two it needs.
	_, err = f.run(context.Background(), f.slow(time.Millisecond, nil))
	require.NoError(t, err)
	s := f.h.Snapshot()
	assert.Equal(t, int64(1), s.Windows)
	assert.Equal(t, 2, s.WindowSamples)
	assert.Equal(t, 500*time.Millisecond, s.WindowLatency)

	// The next window starts at the instant of the recompute (t = 1s).
	f.advanceTo(1999 * time.Millisecond)
	f.run(context.Background(), f.slow(0, nil))
	f.run(context.Background(), f.slow(0, nil))
	assert.Equal(t, int64(1), f.h.Snapshot().Windows)
	f.advanceTo(2 * time.Second)
	f.run(context.Background(), f.slow(0, nil))
	assert.Equal(t, int64(2), f.h.Snapshot().Windows)
	assert.Equal(t, 3, f.h.Snapshot().WindowSamples)
}

func TestShortWindowIsExtendedAndKeepsSamples(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 4})
	f.advanceTo(3500 * time.Millisecond)
	// Over since t=1s with too few samples: each sample that finds it over
	// pushes its end out by one Window from where it was (1s -> 2s -> 3s -> 4s).
	for _, at := range []time.Duration{3500, 3600, 3700} {
		f.advanceTo(at * time.Millisecond)
		f.run(context.Background(), f.slow(100*time.Millisecond, nil))
		assert.Zero(t, f.h.Snapshot().Windows)
	}
	// Four samples now, but the window's end is 4s.
	f.advanceTo(3800 * time.Millisecond)
	f.run(context.Background(), f.slow(100*time.Millisecond, nil))
	assert.Zero(t, f.h.Snapshot().Windows)
	f.advanceTo(3950 * time.Millisecond)
	f.run(context.Background(), f.slow(50*time.Millisecond, nil))
	s := f.h.Snapshot()
	assert.Equal(t, int64(1), s.Windows)
	assert.Equal(t, 5, s.WindowSamples, "an extended window keeps its samples")
	assert.Equal(t, 90*time.Millisecond, s.WindowLatency)
}

func TestNoTrafficNothingMoves(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1})
	f.clk.Advance(time.Hour)
	s := f.h.Snapshot()
	assert.Zero(t, s.Windows)
	assert.Equal(t, 20, s.Limit)
	assert.Empty(t, f.log.all())
	assert.Zero(t, f.clk.Pending())
}

func TestMaxInFlightCountsCallsAlreadyInFlight(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1})
	held := f.acquire(3)
	f.advanceTo(time.Second)
	f.run(context.Background(), f.slow(0, nil)) // ends window 1 with 4 in flight at most
	assert.Equal(t, 4, f.h.Snapshot().MaxInFlight)

	// Window 2 begins with 3 in flight; two leave, one comes and goes.
	f.advanceTo(1200 * time.Millisecond)
	f.releaseAll(held[:2], adaptivelimit.OutcomeIgnore)
	f.advanceTo(2 * time.Second)
	f.run(context.Background(), f.slow(0, nil))
	s := f.h.Snapshot()
	assert.Equal(t, int64(2), s.Windows)
	assert.Equal(t, 3, s.MaxInFlight, "the calls in flight when the window began count")
	f.releaseAll(held[2:], adaptivelimit.OutcomeIgnore)
}

func TestOutcomes(t *testing.T) {
	errNotFound := errors.New("404")
	errBusy := errors.New("busy")
	for _, tc := range []struct {
		name   string
		cfg    adaptivelimit.Config
		err    error
		cancel bool
		sample bool
		drop   bool
	}{
		{"success", adaptivelimit.Config{}, nil, false, true, false},
		{"call timeout", adaptivelimit.Config{}, fmt.Errorf("get: %w", policy.ErrCallTimeout), false, true, true},
		{"bulkhead full", adaptivelimit.Config{}, fmt.Errorf("get: %w", policy.ErrBulkheadFull), false, true, true},
		{"plain failure", adaptivelimit.Config{}, errNotFound, false, false, false},
		{"custom DropOn", adaptivelimit.Config{DropOn: []error{errBusy}}, errBusy, false, true, true},
		{"custom DropOn replaces defaults", adaptivelimit.Config{DropOn: []error{errBusy}}, policy.ErrCallTimeout, false, false, false},
		{"empty DropOn", adaptivelimit.Config{DropOn: []error{}}, policy.ErrCallTimeout, false, false, false},
		{"DropIf", adaptivelimit.Config{DropIf: func(err error) bool { return err == errNotFound }}, errNotFound, false, true, true},
		{"caller cancelled", adaptivelimit.Config{}, context.Canceled, true, false, false},
		{"caller cancelled beats DropIf", adaptivelimit.Config{DropIf: func(error) bool { return true }}, context.Canceled, true, false, false},
		{"cancellation that is not the caller's", adaptivelimit.Config{}, context.Canceled, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.MinWindowSamples = 1
			f := newFixture(t, tc.cfg)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			f.advanceTo(time.Second)
			_, err := f.run(ctx, f.slow(300*time.Millisecond, tc.err))
			assert.Equal(t, tc.err, err, "the error passes through unchanged")
			s := f.h.Snapshot()
			assert.Zero(t, s.InFlight, "the slot is freed")
			if !tc.sample {
				assert.Zero(t, s.Windows, "not a sample: the window cannot end")
				assert.Zero(t, s.Drops)
				return
			}
			assert.Equal(t, int64(1), s.Windows)
			assert.Equal(t, 300*time.Millisecond, s.WindowLatency)
			assert.Equal(t, tc.drop, s.WindowDropped)
			if tc.drop {
				assert.Equal(t, int64(1), s.Drops)
			}
			assert.Equal(t, tc.cfg.WithDefaults().DropOn, f.h.Config().DropOn)
		})
	}
}

func TestClassify(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{})
	ctx := context.Background()
	assert.Equal(t, adaptivelimit.OutcomeSuccess, f.l.Classify(ctx, nil))
	assert.Equal(t, adaptivelimit.OutcomeDrop, f.l.Classify(ctx, policy.ErrCallTimeout))
	assert.Equal(t, adaptivelimit.OutcomeIgnore, f.l.Classify(ctx, errors.New("x")))
	done, cancel := context.WithCancel(ctx)
	cancel()
	assert.Equal(t, adaptivelimit.OutcomeIgnore, f.l.Classify(done, context.Canceled))
	assert.Equal(t, adaptivelimit.OutcomeIgnore, f.l.Classify(done, fmt.Errorf("%w and %w", context.Canceled, policy.ErrCallTimeout)))
}

func TestPanicFreesSlotAndGoesOn(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1, InitialLimit: 1})
	f.advanceTo(time.Second)
	boom := errors.New("boom")
	func() {
		defer func() {
			assert.Same(t, boom, recover(), "the panic goes on with its own value")
		}()
		f.run(context.Background(), func(context.Context) (string, error) {
			f.clk.Advance(time.Millisecond)
			panic(boom)
		})
		t.Error("the panic must not be swallowed")
	}()
	s := f.h.Snapshot()
	assert.Zero(t, s.InFlight)
	assert.Zero(t, s.Windows, "a panic is no sample")
	_, err := f.run(context.Background(), f.slow(0, nil))
	assert.NoError(t, err, "the slot is free again")
}

func TestLoweringBelowInFlightInterruptsNothing(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 10, BackoffRatio: 0.5,
		MinWindowSamples: 1})
	held := f.acquire(10)
	f.advanceTo(time.Second)
	f.l.Release(held[0], adaptivelimit.OutcomeDrop) // ends the window: 10 * 0.5
	assert.Equal(t, 5, f.h.Limit())
	assert.Equal(t, 9, f.h.InFlight(), "nothing is interrupted")
	for _, p := range held[1:5] {
		_, ok := f.l.TryAcquire()
		assert.False(t, ok, "rejected while in flight >= limit")
		f.l.Release(p, adaptivelimit.OutcomeIgnore)
	}
	assert.Equal(t, 5, f.h.InFlight())
	_, ok := f.l.TryAcquire()
	assert.False(t, ok)
	f.l.Release(held[5], adaptivelimit.OutcomeIgnore)
	p, ok := f.l.TryAcquire()
	assert.True(t, ok)
	f.l.Release(p, adaptivelimit.OutcomeIgnore)
	f.releaseAll(held[6:], adaptivelimit.OutcomeIgnore)
	assert.Zero(t, f.h.InFlight())
	ch := f.log.changes()
	require.Len(t, ch, 1)
	assert.Equal(t, events.LimitChanged{Instance: "backend", OldLimit: 10, NewLimit: 5, WindowLatency: time.Second,
		MaxInFlight: 10, Dropped: true, Samples: 1}, ch[0])
}

func TestDisabled(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Disabled: true, InitialLimit: 1, MinWindowSamples: 1})
	for range 5 {
		p, ok := f.l.TryAcquire()
		assert.True(t, ok)
		assert.False(t, p.Held())
		p, err := f.l.Acquire(context.Background())
		assert.NoError(t, err)
		f.l.Release(p, adaptivelimit.OutcomeSuccess)
	}
	f.advanceTo(2 * time.Second)
	inner := &probeLink{end: policy.Stamp(77)}
	links := []policy.Link[string]{adaptivelimit.Stage[string](f.l), inner}
	for range 3 {
		v, end, err := policy.NewChain(links...).Next(func(context.Context) (string, error) {
			assert.Zero(t, f.h.InFlight(), "nothing is measured")
			return "ok", nil
		}, nil).WithStart(42).Run(context.Background())
		assert.NoError(t, err)
		assert.Equal(t, "ok", v)
		assert.Equal(t, policy.Stamp(77), end, "the inner reading passes through")
		assert.Equal(t, policy.Stamp(42), inner.start, "the outer reading passes through")
	}
	fut := f.runAsync(context.Background(), func(context.Context) *futureString { return completed("x") })
	v, err := fut.Get(context.Background())
	assert.NoError(t, err)
	assert.Equal(t, "x", v)
	s := f.h.Snapshot()
	assert.True(t, s.Disabled)
	assert.Zero(t, s.Windows)
	assert.Zero(t, s.InFlight)
	assert.Zero(t, s.Rejections)
	assert.Equal(t, 1, s.Limit)
	assert.Empty(t, f.log.all())
}

func TestEventsOnlyWhenIntegerLimitChanges(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1, Window: testWindow})
	// 20 -> 20.8 (no event) -> 21.6 (event 20 -> 21).
	f.driveWindow(testWindow, windowSpec{concurrent: 20, latency: 100 * time.Millisecond})
	assert.Equal(t, 20, f.h.Limit())
	assert.InDelta(t, 20.8, f.h.Snapshot().EstimatedLimit, 1e-9)
	assert.Empty(t, f.log.all(), "a window that keeps the limit publishes nothing")
	f.driveWindow(testWindow, windowSpec{concurrent: 20, latency: 100 * time.Millisecond})
	assert.InDelta(t, 21.6, f.h.Snapshot().EstimatedLimit, 1e-9)
	ch := f.log.changes()
	require.Len(t, ch, 1)
	assert.Equal(t, events.LimitChanged{Instance: "backend", OldLimit: 20, NewLimit: 21,
		WindowLatency: 100 * time.Millisecond, LongLatency: 100 * time.Millisecond, MaxInFlight: 20, Samples: 21}, ch[0])
	assert.Equal(t, events.KindLimitChanged, ch[0].Kind())
}

func TestNoEventsWithoutBus(t *testing.T) {
	l, err := adaptivelimit.New(adaptivelimit.Config{InitialLimit: 1, MinWindowSamples: 1, Window: time.Millisecond,
		Algorithm: adaptivelimit.AIMD}, policy.Env{})
	require.NoError(t, err)
	p, ok := l.TryAcquire()
	require.True(t, ok)
	_, ok = l.TryAcquire()
	assert.False(t, ok)
	l.Release(p, adaptivelimit.OutcomeDrop)
	assert.Equal(t, int64(1), l.Handle().Snapshot().Rejections)
}
