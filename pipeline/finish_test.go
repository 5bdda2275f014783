package pipeline_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
)

var errFinish = errors.New("finish: boom")

// panicOf runs fn and returns the value it panicked with, or nil.
func panicOf(fn func()) (p any) {
	defer func() { p = recover() }()
	fn()
	return nil
}

// settled reports whether f has completed.
func settled[T any](f *future.Future[T]) bool {
	select {
	case <-f.Done():
		return true
	default:
		return false
	}
}

// Issue 10, case 1: the user's OnComplete on the work's future, registered
// before the stages' own functions, panics. The stages still free their
// slots, the pipeline's future completes, and the panic goes on out of the
// work's Complete.
func TestUserCallbackPanicOnTheWorkFutureLeaksNothing(t *testing.T) {
	clk := clocktest.NewManualClock()
	reg := newReg(t, r4c.WithClock(clk))
	p, err := pipeline.NewBuilder[int](reg, "cb").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 4; c.MinLimit = 4; c.MaxLimit = 4 }).
		Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = 2 }).
		Breaker(nil).
		Build()
	require.NoError(t, err)
	al, err := reg.AdaptiveLimit("cb")
	require.NoError(t, err)
	bh, err := reg.Bulkhead("cb")
	require.NoError(t, err)

	work := future.NewPromise[int]()
	work.Future().OnComplete(func(int, error) { panic("user callback") })
	f := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] { return work.Future() })
	require.Equal(t, 1, al.InFlight())
	require.Equal(t, 1, bh.InFlight())

	assert.Equal(t, "user callback", panicOf(func() { work.Complete(5) }))
	assert.Zero(t, al.InFlight(), "the adaptive limit's slot is free")
	assert.Zero(t, bh.InFlight(), "the bulkhead's slot is free")
	require.True(t, settled(f), "the pipeline's future completed")
	v, err := f.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 5, v)
	assert.Equal(t, int64(1), reg.Snapshot().Breakers["cb"].Calls)
	assert.Zero(t, clk.Pending())
}

// Issue 10, case 2: a listener panics on LimitChanged during an async
// completion. The slot is freed, the pipeline's future completes, and the
// panic goes on out of the work's Complete.
func TestListenerPanicOnAsyncCompletionStillCompletesTheFuture(t *testing.T) {
	clk := clocktest.NewManualClock()
	reg := newReg(t, r4c.WithClock(clk))
	p, err := pipeline.NewBuilder[int](reg, "lc").
		AdaptiveLimit(func(c *adaptivelimit.Config) {
			c.Algorithm = adaptivelimit.AIMD
			c.InitialLimit = 10
			c.MinLimit = 1
			c.MaxLimit = 10
			c.Window = time.Second
			c.MinWindowSamples = 1
			c.DropOn = []error{errFinish}
		}).
		Build()
	require.NoError(t, err)
	al, err := reg.AdaptiveLimit("lc")
	require.NoError(t, err)
	changed := 0
	stop := reg.Events().Subscribe(func(e events.Event) {
		if _, ok := e.(events.LimitChanged); ok {
			changed++
			panic("listener")
		}
	})
	defer stop()

	var got any
	for i := 0; i < 20 && changed == 0; i++ {
		work := future.NewPromise[int]()
		f := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] { return work.Future() })
		clk.Advance(2 * time.Second)
		got = panicOf(func() { work.Fail(errFinish) })
		require.True(t, settled(f), "call %d: the pipeline's future completed", i)
		_, err := f.Get(context.Background())
		require.ErrorIs(t, err, errFinish)
		require.Zero(t, al.InFlight())
	}
	require.Equal(t, 1, changed, "the limit changed (a drop halves it)")
	assert.Equal(t, "listener", got, "the listener's panic goes on")
	assert.Zero(t, clk.Pending())
}

// Issue 10, case 3: DropIf panics on an async call. The slot is freed, the
// future completes with the work's outcome, and the panic goes on.
func TestDropIfPanicOnAsyncCallFreesTheSlot(t *testing.T) {
	reg := newReg(t, r4c.WithClock(clocktest.NewManualClock()))
	p, err := pipeline.NewBuilder[int](reg, "drop").
		AdaptiveLimit(func(c *adaptivelimit.Config) {
			c.InitialLimit = 1
			c.MinLimit = 1
			c.DropIf = func(error) bool { panic("DropIf") }
		}).
		Build()
	require.NoError(t, err)
	al, err := reg.AdaptiveLimit("drop")
	require.NoError(t, err)

	work := future.NewPromise[int]()
	f := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] { return work.Future() })
	require.Equal(t, 1, al.InFlight())
	assert.Equal(t, "DropIf", panicOf(func() { work.Fail(errFinish) }))
	assert.Zero(t, al.InFlight(), "the slot is free")
	require.True(t, settled(f))
	_, err = f.Get(context.Background())
	assert.ErrorIs(t, err, errFinish)

	// The sync path: the same, and the next call is admitted.
	assert.Equal(t, "DropIf", panicOf(func() { _, _ = p.Execute(func() (int, error) { return 0, errFinish }) }))
	assert.Zero(t, al.InFlight())
	v, err := p.Execute(ok)
	require.NoError(t, err)
	assert.Equal(t, 42, v)
}

// Issue 10, case 4: RecordIf or IgnoreIf panics on a half-open trial. The
// trial counts as a failure (the breaker opens again), nothing stays held,
// and after the open wait the breaker lets trials through again.
func TestBreakerPredicatePanicOnTrialGivesThePermitBack(t *testing.T) {
	for _, pred := range []string{"RecordIf", "IgnoreIf"} {
		for _, async := range []bool{false, true} {
			name := pred + "/sync"
			if async {
				name = pred + "/async"
			}
			t.Run(name, func(t *testing.T) {
				clk := clocktest.NewManualClock()
				reg := newReg(t, r4c.WithClock(clk))
				p, err := pipeline.NewBuilder[int](reg, "br").
					Breaker(func(c *breaker.Config) {
						c.HalfOpenCalls = 1
						c.OpenFor = time.Minute
						boom := func(error) bool { panic(pred) }
						if pred == "RecordIf" {
							c.RecordIf = boom
						} else {
							c.IgnoreIf = boom
						}
					}).
					Build()
				require.NoError(t, err)
				h, err := reg.Breaker("br")
				require.NoError(t, err)
				h.TransitionToHalfOpen()

				call := func(fail bool) (int, error) {
					fn := func() (int, error) {
						if fail {
							return 0, errFinish
						}
						return 1, nil
					}
					if !async {
						return p.Execute(fn)
					}
					work := future.NewPromise[int]()
					f := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] { return work.Future() })
					v, err := fn()
					if err != nil {
						work.Fail(err)
					} else {
						work.Complete(v)
					}
					require.True(t, settled(f))
					return f.Get(context.Background())
				}
				assert.Equal(t, pred, panicOf(func() { _, _ = call(true) }))
				assert.Equal(t, breaker.StateOpen, h.State(), "the panicking trial counts as a failure")
				clk.Advance(time.Minute)
				v, err := call(false)
				require.NoError(t, err, "after OpenFor the next trial is admitted and passes")
				assert.Equal(t, 1, v)
				assert.Equal(t, breaker.StateClosed, h.State())
				assert.Zero(t, clk.Pending())
			})
		}
	}
}
