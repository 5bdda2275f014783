package future_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/resilience4cata/r4c/future"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var errBoom = errors.New("boom")

func isDone[T any](f *future.Future[T]) bool {
	select {
	case <-f.Done():
		return true
	default:
		return false
	}
}

func TestCompleteThenGet(t *testing.T) {
	p := future.NewPromise[string]()
	f := p.Future()
	assert.Same(t, f, p.Future(), "always the same future")
	assert.False(t, isDone(f))

	assert.True(t, p.Complete("v"))
	assert.True(t, isDone(f))
	v, err := f.Get(context.Background())
	assert.NoError(t, err)
	assert.Equal(t, "v", v)
	v, err = f.Get(context.Background()) // again: same outcome
	assert.NoError(t, err)
	assert.Equal(t, "v", v)
}

func TestFailThenGet(t *testing.T) {
	p := future.NewPromise[int]()
	assert.True(t, p.Fail(errBoom))
	v, err := p.Future().Get(context.Background())
	assert.Same(t, errBoom, err)
	assert.Zero(t, v)

	// Fail(nil) completes with the zero value and no error.
	p = future.NewPromise[int]()
	assert.True(t, p.Fail(nil))
	v, err = p.Future().Get(context.Background())
	assert.NoError(t, err)
	assert.Zero(t, v)
}

func TestSecondCompletionIsANoOp(t *testing.T) {
	p := future.NewPromise[string]()
	require.True(t, p.Complete("first"))
	assert.False(t, p.Complete("second"), "a second completion says so")
	assert.False(t, p.Fail(errBoom))
	assert.False(t, p.Future().Cancel(), "Cancel after completion")
	v, err := p.Future().Get(context.Background())
	assert.NoError(t, err)
	assert.Equal(t, "first", v, "the first completion stays")

	p = future.NewPromise[string]()
	require.True(t, p.Fail(errBoom))
	assert.False(t, p.Complete("late"))
	_, err = p.Future().Get(context.Background())
	assert.Same(t, errBoom, err)
}

func TestCompletedAndFailed(t *testing.T) {
	f := future.Completed(42)
	assert.True(t, isDone(f))
	v, err := f.Get(context.Background())
	assert.NoError(t, err)
	assert.Equal(t, 42, v)
	assert.False(t, f.Cancel())

	g := future.Failed[int](errBoom)
	assert.True(t, isDone(g))
	v, err = g.Get(context.Background())
	assert.Same(t, errBoom, err)
	assert.Zero(t, v)
	assert.False(t, g.Cancel())
}

func TestGetWaitsForCompletionOnAnotherGoroutine(t *testing.T) {
	p := future.NewPromise[int]()
	got := make(chan int)
	go func() {
		v, _ := p.Future().Get(context.Background())
		got <- v
	}()
	p.Complete(7)
	assert.Equal(t, 7, <-got)
}

func TestGetHonoursCtx(t *testing.T) {
	p := future.NewPromise[int]()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := p.Future().Get(ctx)
		errc <- err
	}()
	cancel()
	assert.Equal(t, context.Canceled, <-errc)
	assert.False(t, isDone(p.Future()), "giving up through ctx does not cancel the future")

	// A ctx already done returns at once; a complete future still wins.
	_, err := p.Future().Get(ctx)
	assert.Equal(t, context.Canceled, err)
	p.Complete(1)
	v, err := p.Future().Get(ctx)
	assert.NoError(t, err)
	assert.Equal(t, 1, v)

	dctx, dcancel := context.WithTimeout(context.Background(), 0)
	defer dcancel()
	_, err = future.NewPromise[int]().Future().Get(dctx)
	assert.Equal(t, context.DeadlineExceeded, err)
}

func TestCancel(t *testing.T) {
	p := future.NewPromise[string]()
	var hooks []string
	p.OnCancel(func() { hooks = append(hooks, "stop work 1") })
	p.OnCancel(func() { hooks = append(hooks, "stop work 2") })
	var outcome error
	p.Future().OnComplete(func(_ string, err error) {
		hooks = append(hooks, "on complete")
		outcome = err
	})

	f := p.Future()
	assert.True(t, f.Cancel(), "the first Cancel takes effect")
	assert.Equal(t, []string{"stop work 1", "stop work 2", "on complete"}, hooks,
		"OnCancel functions, then OnComplete functions, before Cancel returns")
	assert.ErrorIs(t, outcome, future.ErrCancelled)
	assert.True(t, isDone(f))

	v, err := f.Get(context.Background())
	assert.Zero(t, v)
	assert.Equal(t, future.ErrCancelled, err)
	assert.ErrorIs(t, err, context.Canceled, "ErrCancelled matches context.Canceled")
	assert.NotErrorIs(t, err, context.DeadlineExceeded)

	assert.False(t, f.Cancel(), "a second Cancel reports false")
	assert.False(t, p.Complete("late"), "the worker's late completion is a no-op")
	assert.False(t, p.Fail(errBoom))
	assert.Len(t, hooks, 3, "nothing runs twice")
}

func TestOnCancelNotRunOnNormalCompletion(t *testing.T) {
	p := future.NewPromise[int]()
	ran := false
	p.OnCancel(func() { ran = true })
	p.Complete(1)
	p.Future().Cancel()
	assert.False(t, ran)

	p.OnCancel(func() { ran = true }) // registered after completion
	assert.False(t, ran, "a future completed normally never runs OnCancel functions")
}

func TestOnCancelAfterCancelRunsAtOnce(t *testing.T) {
	// Work that starts after its future was cancelled (a hedge attempt
	// started late, say) is stopped at once.
	p := future.NewPromise[int]()
	p.Future().Cancel()
	ran := false
	p.OnCancel(func() { ran = true })
	assert.True(t, ran)
}

func TestCancelRacingOnCancelNeverLosesAHook(t *testing.T) {
	// Whatever the interleaving, a hook registered concurrently with Cancel
	// runs exactly once, because the future is cancelled.
	for range 200 {
		p := future.NewPromise[int]()
		var runs atomic.Int32
		var wg sync.WaitGroup
		wg.Go(func() { p.OnCancel(func() { runs.Add(1) }) })
		wg.Go(func() { p.Future().Cancel() })
		wg.Wait()
		require.Equal(t, int32(1), runs.Load())
	}
}

func TestOnCompleteRunsBeforeGetReturns(t *testing.T) {
	// The state a callback records is visible to whoever returns from Get
	// or sees Done closed: no extra synchronisation needed.
	for range 100 {
		p := future.NewPromise[int]()
		recorded := 0 // written by the callback, read after Get, no lock
		p.Future().OnComplete(func(v int, err error) { recorded = v * 10 })
		go p.Complete(4)
		v, err := p.Future().Get(context.Background())
		require.NoError(t, err)
		require.Equal(t, 4, v)
		require.Equal(t, 40, recorded)
	}

	p := future.NewPromise[int]()
	recorded := false
	p.Future().OnComplete(func(int, error) { recorded = true })
	done := make(chan struct{})
	go func() {
		<-p.Future().Done()
		assert.True(t, recorded, "seen by a goroutine woken by Done")
		close(done)
	}()
	p.Fail(errBoom)
	<-done
}

func TestOnCompleteOrderAndOutcome(t *testing.T) {
	p := future.NewPromise[string]()
	var got []string
	for i := range 3 {
		p.Future().OnComplete(func(v string, err error) {
			got = append(got, fmt.Sprint(i, v, err))
		})
	}
	p.Complete("x")
	assert.Equal(t, []string{"0x<nil>", "1x<nil>", "2x<nil>"}, got, "in registration order")

	q := future.NewPromise[string]()
	var gotErr error
	q.Future().OnComplete(func(_ string, err error) { gotErr = err })
	q.Fail(errBoom)
	assert.Same(t, errBoom, gotErr)
}

func TestOnCompleteAfterCompletionRunsAtOnce(t *testing.T) {
	f := future.Completed("v")
	var got string
	f.OnComplete(func(v string, err error) { got = v })
	assert.Equal(t, "v", got, "runs on the calling goroutine before OnComplete returns")

	g := future.Failed[string](errBoom)
	var gotErr error
	g.OnComplete(func(_ string, err error) { gotErr = err })
	assert.Same(t, errBoom, gotErr)
}

func TestCallbackMayUseTheFuture(t *testing.T) {
	// A callback that registers another callback or cancels (no-op) must not
	// deadlock: no lock is held while callbacks run.
	p := future.NewPromise[int]()
	f := p.Future()
	var inner int
	f.OnComplete(func(v int, _ error) {
		f.OnComplete(func(v int, _ error) { inner = v })
		assert.False(t, f.Cancel())
		assert.False(t, p.Complete(9))
	})
	p.Complete(3)
	assert.Equal(t, 3, inner)
}

func TestOnCancelHookMayCompleteAnotherFuture(t *testing.T) {
	// The shape a pipeline stage uses: the outer promise's OnCancel cancels
	// the inner future, whose OnComplete frees what the stage holds and tries
	// to complete the outer (a no-op by then).
	outer := future.NewPromise[int]()
	inner := future.NewPromise[int]()
	held := true
	outer.OnCancel(func() { inner.Future().Cancel() })
	inner.Future().OnComplete(func(v int, err error) {
		held = false
		if err != nil {
			assert.False(t, outer.Fail(err), "outer is already cancelled")
			return
		}
		outer.Complete(v)
	})
	got := make(chan bool)
	go func() {
		_, err := outer.Future().Get(context.Background())
		assert.ErrorIs(t, err, future.ErrCancelled)
		got <- held // read after Get: the stage's bookkeeping is visible
	}()
	assert.True(t, outer.Future().Cancel())
	assert.False(t, <-got, "the inner future was released before Get returned")
	_, err := inner.Future().Get(context.Background())
	assert.ErrorIs(t, err, future.ErrCancelled)
}

func TestCompletionRaces(t *testing.T) {
	// Several goroutines race to complete, fail and cancel: exactly one
	// wins, and every reader sees the winner's outcome.
	for range 100 {
		p := future.NewPromise[int]()
		f := p.Future()
		var wins atomic.Int32
		var callbacks atomic.Int32
		f.OnComplete(func(int, error) { callbacks.Add(1) })
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				if p.Complete(i) {
					wins.Add(1)
				}
			})
		}
		wg.Go(func() {
			if p.Fail(errBoom) {
				wins.Add(1)
			}
		})
		wg.Go(func() {
			if f.Cancel() {
				wins.Add(1)
			}
		})
		wg.Go(func() { f.OnComplete(func(int, error) { callbacks.Add(1) }) })
		for range 2 {
			wg.Go(func() { _, _ = f.Get(context.Background()) })
		}
		wg.Wait()
		require.Equal(t, int32(1), wins.Load())
		require.Equal(t, int32(2), callbacks.Load(), "each callback exactly once")
	}
}

func TestCallbackPanicStillReleasesWaiters(t *testing.T) {
	p := future.NewPromise[int]()
	p.Future().OnComplete(func(int, error) { panic("listener bug") })
	assert.PanicsWithValue(t, "listener bug", func() { p.Complete(1) })
	select {
	case <-p.Future().Done():
	default:
		t.Fatal("Done not closed after a panicking callback")
	}
	v, err := p.Future().Get(context.Background())
	assert.NoError(t, err)
	assert.Equal(t, 1, v)
}
