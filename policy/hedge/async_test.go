package hedge_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/hedge"
)

func runAsync(f *fixture, ab *asyncBackend, ctx context.Context) *future.Future[string] {
	return hedge.Stage[string](f.h).RunAsync(ctx, policy.NewAsyncNext[string](nil, ab.fn))
}

func done[T any](f *future.Future[T]) bool {
	select {
	case <-f.Done():
		return true
	default:
		return false
	}
}

func get[T any](t *testing.T, f *future.Future[T]) (T, error) {
	t.Helper()
	require.True(t, done(f), "the future is not complete")
	return f.Get(context.Background())
}

func TestAsyncHedgeWinsAndLosersAreCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay, MaxHedged: 2})
		ab := newAsyncBackend()
		fut := runAsync(f, ab, context.Background())
		a1 := ab.next(t) // called on the calling goroutine, before RunAsync returned
		synctest.Wait()
		require.Equal(t, 1, f.clk.Pending())
		f.clk.Advance(delay - 1)
		synctest.Wait()
		require.Empty(t, ab.calls)
		f.clk.Advance(1)
		synctest.Wait()
		a2 := ab.next(t)
		require.False(t, done(fut))
		loserFirst := false
		fut.OnComplete(func(string, error) { loserFirst = done(a1.pr.Future()) })

		a2.pr.Complete("b")
		synctest.Wait()
		v, err := get(t, fut)
		require.NoError(t, err)
		assert.Equal(t, "b", v)
		_, err1 := get(t, a1.pr.Future())
		assert.ErrorIs(t, err1, future.ErrCancelled, "the loser's future is cancelled")
		assert.True(t, loserFirst, "the loser is cancelled before the caller hears")
		assert.Error(t, a1.ctx.Err(), "the loser's ctx is cancelled")
		assert.Zero(t, f.clk.Pending())
		s := f.snap()
		assert.Equal(t, int64(1), s.Calls)
		assert.Equal(t, int64(1), s.HedgesStarted)
		assert.Equal(t, int64(1), s.HedgeWins)
		assert.Len(t, f.events, 1)
	})
}

func TestAsyncFirstWinsBeforeDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		ab := newAsyncBackend()
		fut := runAsync(f, ab, context.Background())
		ab.next(t).pr.Complete("a")
		synctest.Wait()
		v, err := get(t, fut)
		require.NoError(t, err)
		assert.Equal(t, "a", v)
		assert.Zero(t, f.clk.Pending())
		f.clk.Advance(10 * delay)
		synctest.Wait()
		assert.Empty(t, ab.calls)
		assert.Zero(t, f.snap().HedgesStarted)
	})
}

func TestAsyncCompleteAtOnceIsReturnedAsIs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		inner := future.Completed("x")
		fut := hedge.Stage[string](f.h).RunAsync(context.Background(),
			policy.NewAsyncNext[string](nil, func(context.Context) *future.Future[string] { return inner }))
		assert.Same(t, inner, fut)
		assert.Zero(t, f.clk.Pending(), "nothing to hedge: no timer, no goroutine")
	})
}

func TestAsyncRejectedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		fut := hedge.Stage[string](f.h).RunAsync(context.Background(),
			policy.NewAsyncNext[string](nil, func(context.Context) *future.Future[string] { return future.Failed[string](rejection()) }))
		_, err := get(t, fut)
		assert.ErrorIs(t, err, policy.ErrRejected)
		assert.Equal(t, int64(1), f.snap().RejectionStops)
	})
}

func TestAsyncFailureWaitsForOthersThenLastFailureWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		ab := newAsyncBackend()
		fut := runAsync(f, ab, context.Background())
		a1 := ab.next(t)
		synctest.Wait()
		f.clk.Advance(delay)
		synctest.Wait()
		a2 := ab.next(t)
		a1.pr.Fail(errA)
		synctest.Wait()
		require.False(t, done(fut))
		a2.pr.Fail(errB)
		synctest.Wait()
		_, err := get(t, fut)
		assert.ErrorIs(t, err, errB)
	})
}

func TestAsyncRejectionStopsHedging(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay, MaxHedged: 3})
		ab := newAsyncBackend()
		fut := runAsync(f, ab, context.Background())
		a1 := ab.next(t)
		synctest.Wait()
		f.clk.Advance(delay)
		synctest.Wait()
		ab.next(t).pr.Fail(rejection())
		synctest.Wait()
		require.Zero(t, f.clk.Pending())
		f.clk.Advance(10 * delay)
		synctest.Wait()
		require.Empty(t, ab.calls)
		a1.pr.Complete("a")
		synctest.Wait()
		v, err := get(t, fut)
		require.NoError(t, err)
		assert.Equal(t, "a", v)
		assert.Equal(t, int64(1), f.snap().RejectionStops)
	})
}

func TestAsyncCancelCancelsEveryAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		ab := newAsyncBackend()
		fut := runAsync(f, ab, context.Background())
		a1 := ab.next(t)
		synctest.Wait()
		f.clk.Advance(delay)
		synctest.Wait()
		a2 := ab.next(t)

		require.True(t, fut.Cancel())
		synctest.Wait()
		_, err := get(t, fut)
		assert.ErrorIs(t, err, future.ErrCancelled)
		for _, a := range []*asyncAttempt{a1, a2} {
			_, err := get(t, a.pr.Future())
			assert.ErrorIs(t, err, future.ErrCancelled)
			assert.Error(t, a.ctx.Err())
		}
		assert.Zero(t, f.clk.Pending())
	})
}

func TestAsyncCallerCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, hedge.Config{Delay: delay})
		ab := newAsyncBackend()
		ctx, cancel := context.WithCancel(context.Background())
		fut := runAsync(f, ab, ctx)
		a1 := ab.next(t)
		synctest.Wait()
		cancel()
		synctest.Wait()
		_, err := get(t, fut)
		assert.ErrorIs(t, err, context.Canceled)
		assert.True(t, policy.CallerCancelled(ctx, err))
		_, err1 := get(t, a1.pr.Future())
		assert.ErrorIs(t, err1, future.ErrCancelled)
		assert.Zero(t, f.clk.Pending())
		f.clk.Advance(10 * delay)
		synctest.Wait()
		assert.Empty(t, ab.calls)
	})
}

func TestAsyncDisabledPassesThrough(t *testing.T) {
	f := newFixture(t, hedge.Config{Disabled: true})
	ab := newAsyncBackend()
	fut := runAsync(f, ab, context.Background())
	a1 := ab.next(t)
	assert.Same(t, a1.pr.Future(), fut)
	a1.pr.Complete("a")
	assert.Zero(t, f.snap().Calls)
}
