package adaptivelimit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

func TestStageSharesClockReadings(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1})
	f.advanceTo(5 * time.Second)
	now := int64(5 * time.Second) // the manual clock's Nanotime

	// The outer stage's start reading is used and passed inward; the inner
	// stage's end reading is used and passed outward.
	outer := &outerLink{start: policy.Stamp(now - int64(2*time.Second))}
	inner := &probeLink{end: policy.Stamp(now + int64(time.Second))}
	links := []policy.Link[string]{outer, adaptivelimit.Stage[string](f.l), inner}
	_, err := policy.NewChain(links...).Next(f.slow(0, nil), nil).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, outer.start, inner.start)
	assert.Equal(t, inner.end, outer.got)
	s := f.h.Snapshot()
	require.Equal(t, int64(1), s.Windows)
	assert.Equal(t, 3*time.Second, s.WindowLatency, "latency from the outer start to the inner end")

	// Without readings around it, the stage takes its own and shares them.
	f.advanceTo(7 * time.Second)
	outer, inner = &outerLink{start: policy.NoStamp}, &probeLink{end: policy.NoStamp}
	links = []policy.Link[string]{outer, adaptivelimit.Stage[string](f.l), inner}
	_, err = policy.NewChain(links...).Next(f.slow(250*time.Millisecond, nil), nil).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, policy.Stamp(int64(7*time.Second)), inner.start)
	assert.Equal(t, policy.Stamp(int64(7*time.Second+250*time.Millisecond)), outer.got)
	assert.Equal(t, 250*time.Millisecond, f.h.Snapshot().WindowLatency)

	// A failure that is no sample still returns an end reading.
	outer, inner = &outerLink{start: policy.NoStamp}, &probeLink{end: policy.NoStamp}
	links = []policy.Link[string]{outer, adaptivelimit.Stage[string](f.l), inner}
	_, err = policy.NewChain(links...).Next(f.slow(time.Second, errors.New("404")), nil).Call(context.Background())
	require.Error(t, err)
	assert.Equal(t, policy.Stamp(int64(8*time.Second+250*time.Millisecond)), outer.got)

	// A rejection returns no reading.
	held := f.acquire(f.h.Limit())
	outer = &outerLink{start: policy.NoStamp}
	links = []policy.Link[string]{outer, adaptivelimit.Stage[string](f.l)}
	_, err = policy.NewChain(links...).Next(f.slow(0, nil), nil).Call(context.Background())
	assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
	assert.False(t, outer.got.OK())
	f.releaseAll(held, adaptivelimit.OutcomeIgnore)
}

func TestAsyncOutcomes(t *testing.T) {
	errNotFound := errors.New("404")
	for _, tc := range []struct {
		name   string
		err    error
		sample bool
		drop   bool
	}{
		{"success", nil, true, false},
		{"drop", fmt.Errorf("x: %w", policy.ErrCallTimeout), true, true},
		{"plain failure", errNotFound, false, false},
		{"inner cancelled", future.ErrCancelled, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1})
			pr := newPromise()
			fut := f.runAsync(context.Background(), asyncOf(pr.Future()))
			assert.Equal(t, 1, f.h.InFlight(), "the slot is held until the inner future completes")
			f.clk.Advance(1500 * time.Millisecond)
			if tc.err == nil {
				pr.Complete("v")
			} else if errors.Is(tc.err, future.ErrCancelled) {
				pr.Future().Cancel()
			} else {
				pr.Fail(tc.err)
			}
			v, err := fut.Get(context.Background())
			if tc.err == nil {
				assert.NoError(t, err)
				assert.Equal(t, "v", v)
			} else {
				assert.ErrorIs(t, err, tc.err)
			}
			// Visible as soon as Get returns.
			s := f.h.Snapshot()
			assert.Zero(t, s.InFlight)
			if !tc.sample {
				assert.Zero(t, s.Windows)
				return
			}
			assert.Equal(t, int64(1), s.Windows)
			assert.Equal(t, 1500*time.Millisecond, s.WindowLatency, "measured to the completion")
			assert.Equal(t, tc.drop, s.WindowDropped)
		})
	}
}

func TestAsyncCancelFreesSlotWithoutSample(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1, InitialLimit: 1})
	pr := newPromise()
	innerCancelled := false
	pr.OnCancel(func() { innerCancelled = true })
	fut := f.runAsync(context.Background(), asyncOf(pr.Future()))
	f.clk.Advance(2 * time.Second)
	require.True(t, fut.Cancel())
	assert.True(t, innerCancelled, "cancelling the outer future cancels the inner one")
	_, err := fut.Get(context.Background())
	assert.ErrorIs(t, err, future.ErrCancelled)
	s := f.h.Snapshot()
	assert.Zero(t, s.InFlight)
	assert.Zero(t, s.Windows)
	assert.False(t, pr.Complete("late"), "the inner future was completed by its cancellation")
	_, err = f.run(context.Background(), f.slow(0, nil))
	assert.NoError(t, err)
}

func TestAsyncCallerCancelledIsNoSample(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1})
	ctx, cancel := context.WithCancel(context.Background())
	pr := newPromise()
	fut := f.runAsync(ctx, asyncOf(pr.Future()))
	f.clk.Advance(2 * time.Second)
	cancel()
	pr.Fail(context.Canceled)
	_, err := fut.Get(context.Background())
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, f.h.Snapshot().Windows)
	assert.Zero(t, f.h.InFlight())
}

func TestAsyncAlreadyComplete(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1})
	f.advanceTo(time.Second)
	fut := f.runAsync(context.Background(), asyncOf(failed(policy.ErrBulkheadFull)))
	select {
	case <-fut.Done():
	default:
		t.Fatal("a completed inner future completes the outer one at once")
	}
	_, err := fut.Get(context.Background())
	assert.ErrorIs(t, err, policy.ErrBulkheadFull)
	s := f.h.Snapshot()
	assert.Equal(t, int64(1), s.Windows)
	assert.True(t, s.WindowDropped)
	assert.Zero(t, s.WindowLatency)
	assert.Zero(t, s.InFlight)
}

func TestAsyncPanicFreesSlot(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{InitialLimit: 1})
	assert.PanicsWithValue(t, "kaboom", func() {
		f.runAsync(context.Background(), func(context.Context) *futureString { panic("kaboom") })
	})
	assert.Zero(t, f.h.InFlight())
	// A nil future from the function is a failed call, not a leak.
	fut := f.runAsync(context.Background(), func(context.Context) *futureString { return nil })
	_, err := fut.Get(context.Background())
	assert.ErrorIs(t, err, policy.ErrNilFuture)
	assert.Zero(t, f.h.InFlight())
}

func TestAsyncRejectionAndMaxWait(t *testing.T) {
	// Asynchronous calls never wait, even with MaxWait.
	f := newFixture(t, adaptivelimit.Config{InitialLimit: 1, MaxWait: time.Minute})
	held := f.acquire(1)
	started := false
	fut := f.runAsync(context.Background(), func(context.Context) *futureString { started = true; return completed("x") })
	select {
	case <-fut.Done():
	default:
		t.Fatal("a full limit fails the future at once")
	}
	_, err := fut.Get(context.Background())
	assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
	assert.False(t, started)
	assert.Len(t, f.log.rejections(), 1)
	f.releaseAll(held, adaptivelimit.OutcomeIgnore)
}

func TestMaxWaitGetsReleasedSlot(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{InitialLimit: 1, MaxWait: time.Second, MinWindowSamples: 1})
	held := f.acquire(1)
	type result struct {
		v   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f.run(context.Background(), f.slow(0, nil))
		done <- result{v, err}
	}()
	require.NoError(t, f.clk.BlockUntil(context.Background(), 1))
	assert.Equal(t, 1, f.h.Snapshot().Waiting)
	_, ok := f.l.TryAcquire()
	assert.False(t, ok, "no barging past a waiting call")
	f.clk.Advance(400 * time.Millisecond)
	f.l.Release(held[0], adaptivelimit.OutcomeIgnore)
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, "ok", r.v)
	assert.Zero(t, f.h.InFlight())
	assert.Zero(t, f.h.Snapshot().Waiting)
	assert.Equal(t, int64(1), f.h.Snapshot().Rejections, "only the TryAcquire")
	assert.Zero(t, f.clk.Pending(), "the wait's timer is stopped")
}

func TestMaxWaitRunsOut(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{InitialLimit: 1, MaxWait: time.Second})
	held := f.acquire(1)
	done := make(chan error, 1)
	go func() {
		_, err := f.l.Acquire(context.Background())
		done <- err
	}()
	require.NoError(t, f.clk.BlockUntil(context.Background(), 1))
	f.clk.Advance(999 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("returned before MaxWait: %v", err)
	default:
	}
	f.clk.Advance(time.Millisecond)
	err := <-done
	assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
	s := f.h.Snapshot()
	assert.Equal(t, int64(1), s.Rejections)
	assert.Zero(t, s.Waiting)
	assert.Len(t, f.log.rejections(), 1)
	f.releaseAll(held, adaptivelimit.OutcomeIgnore)
	assert.Zero(t, f.h.InFlight())
}

func TestMaxWaitHonoursCtx(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{InitialLimit: 1, MaxWait: time.Hour})
	held := f.acquire(1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.run(ctx, f.slow(0, nil))
		done <- err
	}()
	require.NoError(t, f.clk.BlockUntil(context.Background(), 1))
	cancel()
	err := <-done
	assert.ErrorIs(t, err, context.Canceled)
	assert.True(t, policy.CallerCancelled(ctx, err))
	s := f.h.Snapshot()
	assert.Zero(t, s.Rejections, "the caller's cancellation is no rejection")
	assert.Zero(t, s.Waiting)

	// Already cancelled: no wait at all.
	_, err = f.l.Acquire(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	f.releaseAll(held, adaptivelimit.OutcomeIgnore)
	assert.Zero(t, f.h.InFlight())
	assert.Zero(t, f.clk.Pending())
}

func TestMaxWaitOrder(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{InitialLimit: 2, MaxWait: time.Hour, LowPriorityShare: 1})
	held := f.acquire(2)
	order := make(chan string, 4)
	permits := make(chan adaptivelimit.Permit, 4)
	start := func(name string, p adaptivelimit.Priority, armed int) {
		go func() {
			pm, err := f.l.Acquire(adaptivelimit.WithPriority(context.Background(), p))
			if err != nil {
				order <- name + ": " + err.Error()
				return
			}
			order <- name
			permits <- pm
		}()
		require.NoError(t, f.clk.BlockUntil(context.Background(), armed))
	}
	start("low", adaptivelimit.PriorityLow, 1)
	start("normal-1", adaptivelimit.PriorityNormal, 2)
	start("high", adaptivelimit.PriorityHigh, 3)
	start("normal-2", adaptivelimit.PriorityNormal, 4)
	var got []string
	release := func(p adaptivelimit.Permit) {
		f.l.Release(p, adaptivelimit.OutcomeIgnore)
		got = append(got, <-order)
	}
	release(held[0])
	release(held[1])
	release(<-permits)
	release(<-permits)
	assert.Equal(t, []string{"high", "normal-1", "normal-2", "low"}, got)
	f.l.Release(<-permits, adaptivelimit.OutcomeIgnore)
	f.l.Release(<-permits, adaptivelimit.OutcomeIgnore)
	assert.Zero(t, f.h.InFlight())
	assert.Zero(t, f.clk.Pending())
}

func TestMaxWaitWokenByLimitIncrease(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 2, MaxWait: time.Hour,
		MinWindowSamples: 1})
	held := f.acquire(2)
	got := make(chan adaptivelimit.Permit, 2)
	for i := range 2 {
		go func() {
			p, err := f.l.Acquire(context.Background())
			if assert.NoError(t, err) {
				got <- p
			}
		}()
		require.NoError(t, f.clk.BlockUntil(context.Background(), i+1))
	}
	f.advanceTo(time.Second)
	// This sample frees a slot (the first waiter takes it) and ends the
	// window: 2 in flight of 2, so AIMD raises the limit to 3, which lets the
	// second waiter in.
	f.l.Release(held[0], adaptivelimit.OutcomeSuccess)
	p1, p2 := <-got, <-got
	assert.Equal(t, 3, f.h.Limit())
	assert.Equal(t, 3, f.h.InFlight())
	for _, p := range []adaptivelimit.Permit{held[1], p1, p2} {
		f.l.Release(p, adaptivelimit.OutcomeIgnore)
	}
	assert.Zero(t, f.h.InFlight())
}

func TestPriorities(t *testing.T) {
	low := adaptivelimit.WithPriority(context.Background(), adaptivelimit.PriorityLow)
	high := adaptivelimit.WithPriority(context.Background(), adaptivelimit.PriorityHigh)
	assert.Equal(t, adaptivelimit.PriorityLow, adaptivelimit.PriorityFrom(low))
	assert.Equal(t, adaptivelimit.PriorityNormal, adaptivelimit.PriorityFrom(context.Background()))

	f := newFixture(t, adaptivelimit.Config{InitialLimit: 10}) // low may use 8 slots
	var held []adaptivelimit.Permit
	take := func(ctx context.Context) bool {
		p, err := f.l.Acquire(ctx)
		if err != nil {
			assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
			return false
		}
		held = append(held, p)
		return true
	}
	for range 8 {
		require.True(t, take(low))
	}
	assert.False(t, take(low), "low priority is shed at 80% of the limit")
	assert.False(t, take(adaptivelimit.WithPriority(context.Background(), -5)), "below zero counts as low")
	assert.True(t, take(context.Background()))
	assert.True(t, take(high))
	assert.False(t, take(high))
	assert.False(t, take(context.Background()))
	f.releaseAll(held[:3], adaptivelimit.OutcomeIgnore)
	held = held[3:]
	assert.Equal(t, 7, f.h.InFlight())
	assert.True(t, take(low))
	assert.False(t, take(low))
	f.releaseAll(held, adaptivelimit.OutcomeIgnore)

	// Through the stage, the same rule.
	held = nil
	for range 8 {
		require.True(t, take(context.Background()))
	}
	_, err := f.run(low, f.slow(0, nil))
	assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
	_, err = f.run(high, f.slow(0, nil))
	assert.NoError(t, err)
	fut := f.runAsync(low, asyncOf(completed("x")))
	_, err = fut.Get(context.Background())
	assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
	f.releaseAll(held, adaptivelimit.OutcomeIgnore)

	// At limit 1 a low-priority call still gets the slot when it is free.
	g := newFixture(t, adaptivelimit.Config{InitialLimit: 1})
	p, err := g.l.Acquire(low)
	require.NoError(t, err)
	g.l.Release(p, adaptivelimit.OutcomeIgnore)

	// With a share of 1 low priority is normal priority.
	h := newFixture(t, adaptivelimit.Config{InitialLimit: 4, LowPriorityShare: 1})
	for range 4 {
		_, err := h.l.Acquire(low)
		require.NoError(t, err)
	}
}

func TestLatencyCeiling(t *testing.T) {
	t.Run("gradient2", func(t *testing.T) {
		// Latency drifts up slowly, so that the long-term average follows it
		// and Gradient2 alone keeps growing; the ceiling makes the windows
		// above it overload.
		for _, ceiling := range []time.Duration{0, 150 * time.Millisecond} {
			f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1, Window: testWindow, LatencyCeiling: ceiling})
			m := &gradient2Model{smoothing: 0.2, rttTolerance: 1.5, longWindow: 600, queueSize: 4, minLimit: 1,
				maxLimit: 200, estimated: 20, ceiling: float64(ceiling)}
			for i := range 30 {
				lat := 100*time.Millisecond + time.Duration(i)*5*time.Millisecond
				c := f.h.Limit()
				if i >= 20 {
					c = 2 // app-limited: the ceiling still applies
				}
				f.driveWindow(testWindow, windowSpec{concurrent: c, latency: lat})
				m.update(float64(lat), c)
				s := f.h.Snapshot()
				require.InDelta(t, m.estimated, s.EstimatedLimit, 1e-9, "window %d", i)
				assert.Equal(t, ceiling > 0 && lat > ceiling, s.Overloaded, "window %d", i)
			}
			if ceiling == 0 {
				assert.GreaterOrEqual(t, f.h.Limit(), 35, "without a ceiling the drift goes unnoticed")
			} else {
				assert.Less(t, f.h.Limit(), 30, "the ceiling turns the drift into overload")
			}
		}
	})
	t.Run("aimd", func(t *testing.T) {
		f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, MinWindowSamples: 1,
			Window: testWindow, LatencyCeiling: time.Second, InitialLimit: 10})
		f.driveWindow(testWindow, windowSpec{concurrent: 10, latency: time.Second})
		assert.Equal(t, 11, f.h.Limit(), "at the ceiling is not above it")
		f.driveWindow(testWindow, windowSpec{concurrent: 11, latency: time.Second + 1})
		assert.Equal(t, 9, f.h.Limit(), "above the ceiling counts as a drop: int(11*0.9)")
		s := f.h.Snapshot()
		assert.True(t, s.Overloaded)
		assert.False(t, s.WindowDropped, "no call was a drop")
	})
	t.Run("vegas", func(t *testing.T) {
		f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.Vegas, MinWindowSamples: 1,
			Window: testWindow, LatencyCeiling: 100 * time.Millisecond})
		f.driveWindow(testWindow, windowSpec{concurrent: 20, latency: 50 * time.Millisecond}) // sets the no-load latency
		assert.Equal(t, 20, f.h.Limit())
		f.driveWindow(testWindow, windowSpec{concurrent: 20, latency: 50 * time.Millisecond}) // no queue: +6*log10
		assert.Equal(t, 26, f.h.Limit())
		f.driveWindow(testWindow, windowSpec{concurrent: 26, latency: 101 * time.Millisecond})
		assert.Equal(t, 25, f.h.Limit(), "above the ceiling counts as a drop: -log10")
	})
}

func TestZeroLatencyWindows(t *testing.T) {
	// On a manual clock that does not move during calls every latency is
	// zero; the algorithms must stay finite.
	for _, alg := range []adaptivelimit.Algorithm{adaptivelimit.Gradient2, adaptivelimit.AIMD, adaptivelimit.Vegas} {
		f := newFixture(t, adaptivelimit.Config{Algorithm: alg, MinWindowSamples: 1, Window: testWindow})
		for range 5 {
			f.driveWindow(testWindow, windowSpec{concurrent: f.h.Limit(), latency: 0})
		}
		f.driveWindow(testWindow, windowSpec{concurrent: f.h.Limit(), latency: time.Millisecond})
		for range 5 {
			f.driveWindow(testWindow, windowSpec{concurrent: f.h.Limit(), latency: 0})
		}
		s := f.h.Snapshot()
		assert.False(t, s.EstimatedLimit != s.EstimatedLimit, "%v: NaN estimate", alg)
		assert.GreaterOrEqual(t, s.Limit, 1)
		assert.LessOrEqual(t, s.Limit, 200)
		assert.Greater(t, s.Limit, 20, "%v: zero latency is healthy", alg)
	}
}

func TestClockSetBackIsZeroLatency(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1})
	f.advanceTo(3 * time.Second)
	p := f.acquire(1)[0]
	f.clk.Set(f.clk.Now().Add(-time.Second)) // still past the first window's end
	f.l.Release(p, adaptivelimit.OutcomeSuccess)
	s := f.h.Snapshot()
	assert.Equal(t, int64(1), s.Windows)
	assert.Zero(t, s.WindowLatency)
}

// TestMaxWaitCancelRacesGrant lets a waiting call's cancellation race with
// the release that hands it a slot: whichever wins, no slot is lost.
func TestMaxWaitCancelRacesGrant(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{InitialLimit: 1, MaxWait: time.Hour})
	for range 200 {
		held := f.acquire(1)[0]
		ctx, cancel := context.WithCancel(context.Background())
		type result struct {
			p   adaptivelimit.Permit
			err error
		}
		done := make(chan result, 1)
		go func() {
			p, err := f.l.Acquire(ctx)
			done <- result{p, err}
		}()
		require.NoError(t, f.clk.BlockUntil(context.Background(), 1))
		cancel()
		f.l.Release(held, adaptivelimit.OutcomeIgnore)
		r := <-done
		if r.err == nil {
			assert.Equal(t, 1, f.h.InFlight())
			f.l.Release(r.p, adaptivelimit.OutcomeIgnore)
		} else {
			assert.ErrorIs(t, r.err, context.Canceled)
		}
		assert.Zero(t, f.h.InFlight())
		assert.Zero(t, f.h.Snapshot().Waiting)
		require.NoError(t, f.clk.BlockUntil(context.Background(), 0))
		assert.Zero(t, f.clk.Pending())
	}
	assert.Zero(t, f.h.Snapshot().Rejections)
}
