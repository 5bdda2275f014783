package hedge_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/hedge"
)

var (
	errLimit = errors.New("limit exceeded")
	errA     = errors.New("attempt 1 failed")
	errB     = errors.New("attempt 2 failed")
)

func TestDelayStartsAttemptsUpToMaxHedged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay, MaxHedged: 2})
		done := f.run(context.Background())
		synctest.Wait()
		a1 := f.be.next(t)
		require.Equal(t, 1, f.clk.Pending(), "the first delay is armed")

		f.clk.Advance(delay - 1)
		synctest.Wait()
		f.be.none(t)
		pending(t, done)

		f.clk.Advance(1)
		synctest.Wait()
		a2 := f.be.next(t)
		require.Equal(t, 1, f.clk.Pending(), "the second delay is armed")

		f.clk.Advance(delay)
		synctest.Wait()
		a3 := f.be.next(t)
		require.Zero(t, f.clk.Pending(), "MaxHedged reached: no more delays")

		f.clk.Advance(10 * delay)
		synctest.Wait()
		f.be.none(t)
		pending(t, done)
		assert.False(t, a1.cancelled() || a2.cancelled() || a3.cancelled())

		a2.ok("b")
		synctest.Wait()
		out := recv(t, done)
		require.NoError(t, out.err)
		assert.Equal(t, "b", out.v)
		assert.True(t, a1.cancelled(), "a loser's ctx is cancelled")
		assert.True(t, a3.cancelled(), "a loser's ctx is cancelled")
		assert.True(t, a2.cancelled(), "the winner's ctx ends with the call")

		assert.Equal(t, hedge.Snapshot{Delay: delay, MaxHedged: 2,
			Calls: 1, HedgesStarted: 2, HedgeWins: 1}, f.snap())
		assert.Equal(t, []events.Event{
			events.HedgeStarted{Instance: "h", Attempt: 2},
			events.HedgeStarted{Instance: "h", Attempt: 3},
		}, f.events)
	})
}

func TestFirstAttemptBeforeDelayStartsNoHedge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		done := f.run(context.Background())
		synctest.Wait()
		f.clk.Advance(delay - 1)
		f.be.next(t).ok("a")
		synctest.Wait()
		out := recv(t, done)
		require.NoError(t, out.err)
		assert.Equal(t, "a", out.v)
		assert.Zero(t, f.clk.Pending(), "the delay is disarmed")
		f.clk.Advance(delay)
		synctest.Wait()
		f.be.none(t)
		assert.Equal(t, int64(1), f.snap().Calls)
		assert.Zero(t, f.snap().HedgesStarted)
		assert.Empty(t, f.events)
	})
}

func TestFirstAttemptCanWinAfterHedge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		done := f.run(context.Background())
		synctest.Wait()
		a1 := f.be.next(t)
		f.clk.Advance(delay)
		synctest.Wait()
		a2 := f.be.next(t)
		a1.ok("a")
		synctest.Wait()
		out := recv(t, done)
		assert.Equal(t, outcome{v: "a"}, out)
		assert.True(t, a2.cancelled())
		s := f.snap()
		assert.Equal(t, int64(1), s.HedgesStarted)
		assert.Zero(t, s.HedgeWins, "the first attempt won")
	})
}

func TestFailureDoesNotEndCallWhileOthersRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay, MaxHedged: 2})
		done := f.run(context.Background())
		synctest.Wait()
		a1 := f.be.next(t)
		f.clk.Advance(delay)
		synctest.Wait()
		a2 := f.be.next(t)
		a1.fail(errA)
		synctest.Wait()
		pending(t, done)
		require.Equal(t, 1, f.clk.Pending(), "a failure does not stop the schedule")
		f.be.none(t)

		a2.ok("b")
		synctest.Wait()
		assert.Equal(t, outcome{v: "b"}, recv(t, done))
		assert.Equal(t, int64(1), f.snap().HedgeWins)
	})
}

func TestAllFailedReturnsLastFailure(t *testing.T) {
	for _, tc := range []struct {
		name        string
		firstToFail int
		want        error
	}{
		{"first fails first", 1, errB},
		{"hedge fails first", 2, errA},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, hedge.Config{Delay: delay})
				done := f.run(context.Background())
				synctest.Wait()
				a1 := f.be.next(t)
				f.clk.Advance(delay)
				synctest.Wait()
				a2 := f.be.next(t)
				if tc.firstToFail == 1 {
					a1.fail(errA)
				} else {
					a2.fail(errB)
				}
				synctest.Wait()
				pending(t, done)
				if tc.firstToFail == 1 {
					a2.fail(errB)
				} else {
					a1.fail(errA)
				}
				synctest.Wait()
				out := recv(t, done)
				assert.ErrorIs(t, out.err, tc.want)
				assert.Zero(t, f.snap().HedgeWins)
			})
		})
	}
}

func TestLoneFailureEndsCallWithoutHedging(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay, MaxHedged: 3})
		done := f.run(context.Background())
		synctest.Wait()
		f.be.next(t).fail(errA)
		synctest.Wait()
		assert.ErrorIs(t, recv(t, done).err, errA)
		assert.Zero(t, f.clk.Pending())
		f.clk.Advance(10 * delay)
		synctest.Wait()
		f.be.none(t)
		assert.Zero(t, f.snap().HedgesStarted)
	})
}

func TestRejectionStopsHedging(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay, MaxHedged: 3})
		done := f.run(context.Background())
		synctest.Wait()
		a1 := f.be.next(t)
		f.clk.Advance(delay)
		synctest.Wait()
		f.be.next(t).fail(rejection())
		synctest.Wait()
		pending(t, done)
		require.Zero(t, f.clk.Pending(), "no more delays after a rejection")
		f.clk.Advance(10 * delay)
		synctest.Wait()
		f.be.none(t)
		assert.False(t, a1.cancelled(), "the running attempt goes on")

		a1.ok("a")
		synctest.Wait()
		assert.Equal(t, outcome{v: "a"}, recv(t, done))
		s := f.snap()
		assert.Equal(t, int64(1), s.HedgesStarted)
		assert.Equal(t, int64(1), s.RejectionStops)
	})
}

func TestRejectedFirstAttemptEndsCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		done := f.run(context.Background())
		synctest.Wait()
		f.be.next(t).fail(rejection())
		synctest.Wait()
		out := recv(t, done)
		assert.ErrorIs(t, out.err, policy.ErrRejected)
		assert.ErrorIs(t, out.err, errLimit)
		assert.Zero(t, f.clk.Pending())
		assert.Equal(t, int64(1), f.snap().RejectionStops)
	})
}

func TestRejectionOfLastAttemptStopsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		done := f.run(context.Background())
		synctest.Wait()
		a1 := f.be.next(t)
		f.clk.Advance(delay)
		synctest.Wait()
		f.be.next(t).fail(rejection())
		synctest.Wait()
		pending(t, done)
		a1.ok("a")
		synctest.Wait()
		assert.Equal(t, outcome{v: "a"}, recv(t, done))
		assert.Zero(t, f.snap().RejectionStops, "every attempt had started already")
	})
}

func TestCallerCancellationCancelsEveryAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay, MaxHedged: 2})
		ctx, cancel := context.WithCancel(context.Background())
		done := f.run(ctx)
		synctest.Wait()
		a1 := f.be.next(t)
		f.clk.Advance(delay)
		synctest.Wait()
		a2 := f.be.next(t)

		cancel()
		synctest.Wait()
		out := recv(t, done)
		assert.ErrorIs(t, out.err, context.Canceled)
		assert.True(t, policy.CallerCancelled(ctx, out.err))
		assert.True(t, a1.cancelled())
		assert.True(t, a2.cancelled())
		assert.Zero(t, f.clk.Pending(), "no attempt starts after the caller gave up")
	})
}

func TestWinnerReturnsWhileLoserIgnoresCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		f.be.ignoreCtx = true
		done := f.run(context.Background())
		synctest.Wait()
		a1 := f.be.next(t)
		f.clk.Advance(delay)
		synctest.Wait()
		f.be.next(t).ok("b")
		synctest.Wait()
		assert.Equal(t, outcome{v: "b"}, recv(t, done), "the winner does not wait for the loser")
		assert.True(t, a1.cancelled())
		a1.ok("late") // the loser's goroutine ends when its function returns
	})
}

func TestPanicInAttemptIsRaisedOnCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		firstCtx := make(chan context.Context, 1)
		n := 0
		fn := func(ctx context.Context) (string, error) {
			n++ // attempts start one after the other: the second after the delay
			if n == 1 {
				firstCtx <- ctx
				<-ctx.Done()
				return "", ctx.Err()
			}
			panic("boom")
		}
		var got any
		returned := false
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer func() { got = recover() }()
			_, _ = hedge.Do(context.Background(), f.h, fn)
			returned = true
		}()
		synctest.Wait()
		ctx1 := <-firstCtx
		f.clk.Advance(delay)
		synctest.Wait()
		<-done
		assert.False(t, returned)
		assert.Equal(t, "boom", got)
		assert.Error(t, ctx1.Err(), "the other attempt is cancelled")
		assert.Zero(t, f.clk.Pending())
	})
}

func TestGoexitInAttemptEndsCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		fn := func(ctx context.Context) (string, error) {
			runtime.Goexit()
			return "", nil
		}
		returned := false
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = hedge.Do(context.Background(), f.h, fn)
			returned = true
		}()
		<-done
		assert.False(t, returned, "Goexit goes on on the caller's goroutine")
		assert.Zero(t, f.clk.Pending())
	})
}

// stamper is an inner stage that records the start reading it is given and
// reports an end reading.
type stamper struct{ starts chan policy.Stamp }

func (s stamper) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	s.starts <- next.Start
	v, _, err := next.Run(ctx)
	return v, policy.Stamp(42), err
}

func (s stamper) RunAsync(ctx context.Context, next policy.AsyncNext[string]) *future.Future[string] {
	return next.Call(ctx)
}

func TestAttemptsReadTheirOwnClockAndWinnerStampGoesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		s := stamper{starts: make(chan policy.Stamp, 2)}
		next := policy.NewNext([]policy.Link[string]{s}, func(context.Context) (string, error) { return "a", nil }, nil).WithStart(7)
		v, st, err := hedge.Stage[string](f.h).Run(context.Background(), next)
		require.NoError(t, err)
		assert.Equal(t, "a", v)
		assert.Equal(t, policy.Stamp(42), st)
		assert.Equal(t, policy.NoStamp, <-s.starts, "each attempt uses next.Fresh()")
	})
}

func TestDisabledPassesThrough(t *testing.T) {
	f := newFixture(t, hedge.Config{Disabled: true, Delay: delay})
	s := stamper{starts: make(chan policy.Stamp, 1)}
	next := policy.NewNext([]policy.Link[string]{s}, nil, func() (string, error) { return "a", nil }).WithStart(7)
	v, st, err := hedge.Stage[string](f.h).Run(context.Background(), next)
	require.NoError(t, err)
	assert.Equal(t, "a", v)
	assert.Equal(t, policy.Stamp(42), st)
	assert.Equal(t, policy.Stamp(7), <-s.starts, "disabled keeps the shared reading")
	assert.Zero(t, f.clk.Pending())
	assert.Equal(t, hedge.Snapshot{Disabled: true, Delay: delay, MaxHedged: 1}, f.snap())
}

func TestCallerCancelledBeforeTheCallStartsNothing(t *testing.T) {
	f := newFixture(t, hedge.Config{Delay: delay})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := hedge.Do(ctx, f.h, f.be.fn)
	assert.ErrorIs(t, err, context.Canceled)
	f.be.none(t)
	assert.Zero(t, f.clk.Pending())

	_, err = hedge.Stage[string](f.h).RunAsync(ctx, policy.NewAsyncNext[string](nil, newAsyncBackend().fn)).Get(context.Background())
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int64(2), f.snap().Calls)
}

// The delay runs from before the first attempt starts: whatever the first
// attempt does (reach its server, where a test waits for it before it
// advances a ManualClock), an advance by the delay starts the hedge. The
// timer was armed after the attempt had started, for the whole delay, and
// an advance that came first was lost: the hedge never started.
func TestDelayIsArmedBeforeTheFirstAttemptStarts(t *testing.T) {
	t.Run("sync", func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay, MaxHedged: 1})
		armed := -1
		v, err := hedge.Do(context.Background(), f.h, func(context.Context) (string, error) {
			armed = f.clk.Pending()
			return "ok", nil
		})
		require.NoError(t, err)
		assert.Equal(t, "ok", v)
		assert.Equal(t, 1, armed, "timers armed when the first attempt ran")
		assert.Zero(t, f.clk.Pending(), "the timer is stopped when the call ends")
	})
	t.Run("async", func(t *testing.T) {
		// The asynchronous stage arms its timer once the first attempt
		// has returned a future that is not done, for what remains of the
		// delay: a delay that passed while the attempt was being started
		// starts the hedge at once.
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, hedge.Config{Delay: delay, MaxHedged: 1})
			var attempts []*future.Promise[string]
			fut := hedge.Stage[string](f.h).RunAsync(context.Background(), policy.NewAsyncNext[string](nil,
				func(context.Context) *future.Future[string] {
					pr := future.NewPromise[string]()
					attempts = append(attempts, pr)
					if len(attempts) == 1 {
						f.clk.Advance(delay) // the test sees the attempt and advances
					}
					return pr.Future()
				}))
			synctest.Wait()
			require.Len(t, attempts, 2, "the hedge started when the delay had passed")
			attempts[1].Complete("hedge")
			v, err := fut.Get(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "hedge", v)
			synctest.Wait()
			assert.Zero(t, f.clk.Pending())
		})
	})
	t.Run("async, over at once", func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay, MaxHedged: 1})
		fut := hedge.Stage[string](f.h).RunAsync(context.Background(), policy.NewAsyncNext[string](nil,
			func(context.Context) *future.Future[string] { return future.Completed("cached") }))
		v, err := fut.Get(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "cached", v)
		assert.Zero(t, f.clk.Pending(), "a call over before it could hedge leaves no timer armed")
	})
}
