package timeout

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// Stage returns the pipeline stage of t for calls of result type T. Make it
// once, when the pipeline is built, and use it for every call.
//
// Run (the synchronous path) gives the stages inside a ctx with t's
// deadline. It passes next.Start inward unchanged and the inner end reading
// upward; it reads the clock once only when the caller gets a timeout at the
// deadline, so that an adaptive limit outside records the timeout's latency.
// Cooperative mode allocates only the deadline context; the default mode
// also starts a goroutine, and recycles the record it shares with it.
//
// RunAsync (the asynchronous path) starts the inner chain with the deadline
// ctx. If the deadline fires before the inner future completes, the
// returned future fails with the [*CallTimeoutError] at once, while the
// inner future keeps whatever its stages hold until it completes.
// Cancelling the returned future cancels the inner one. The inner
// completion goes through [policy.ForwardTo]; a listener of the Timeout
// event that panics still lets the returned future fail with the timeout.
func Stage[T any](t *Timeout) policy.Link[T] { return newStage[T](t) }

type stage[T any] struct {
	t    *Timeout
	pool sync.Pool // of *call[T]
}

var _ policy.Link[any] = (*stage[any])(nil)

func newStage[T any](t *Timeout) *stage[T] {
	s := &stage[T]{t: t}
	s.pool.New = func() any {
		c := &call[T]{stage: s, done: make(chan struct{}, 1)}
		c.run = c.work // bound once: starting the goroutine allocates nothing
		return c
	}
	return s
}

// Run implements [policy.Link].
func (s *stage[T]) Run(ctx context.Context, next policy.Next[T]) (T, policy.Stamp, error) {
	switch {
	case s.t.disabled:
		return next.Run(ctx)
	case s.t.cooperative:
		return s.runCooperative(ctx, next)
	default:
		return s.runDetached(ctx, next)
	}
}

// runCooperative runs the work on the caller's goroutine with the deadline
// ctx and waits for it. If the deadline fired before the work returned (and
// the caller's ctx is not done), the late outcome is dropped and the caller
// gets the zero T and the *CallTimeoutError.
func (s *stage[T]) runCooperative(ctx context.Context, next policy.Next[T]) (T, policy.Stamp, error) {
	t := s.t
	wctx, cancel := t.deadline(ctx)
	defer cancel() // also on panic: the deadline's timer never outlives the call
	v, end, err := next.Run(wctx)
	if ours(ctx, wctx) {
		t.timedOut(ctx)
		var zero T
		return zero, end, t.err // the work returned just now: its end reading is the timeout's
	}
	return v, end, err
}

// The states of a call record. The caller and the work's goroutine race
// to move it out of running with a CAS: the work to finished when it
// returns, the caller to abandoned when the deadline fires first. Whoever
// loses knows the other side's state is final.
const (
	running uint32 = iota
	finished
	abandoned
)

// call is what the caller and the work's goroutine share in the default
// mode. It is recycled through the stage's pool by whichever side touches
// it last: the caller after reading a finished call, the goroutine when the
// caller abandoned it.
type call[T any] struct {
	stage *stage[T]
	run   func() // c.work, bound once
	done  chan struct{}
	state atomic.Uint32

	// Set by the caller before the goroutine starts.
	ctx  context.Context // the caller's ctx
	wctx context.Context // the work's ctx, with the deadline
	next policy.Next[T]

	// Set by the goroutine before it moves state to finished.
	v          T
	err        error
	end        policy.Stamp
	late       bool // the deadline fired (and the caller's ctx was not done) before the work returned
	panicked   bool
	panicValue any
	goexit     bool
}

// runDetached runs the work on a goroutine and returns at the deadline even
// if the work ignores its ctx. The goroutine keeps running, and the stages
// inside keep what they hold, until the work returns.
func (s *stage[T]) runDetached(ctx context.Context, next policy.Next[T]) (T, policy.Stamp, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, policy.NoStamp, err // the caller gave up already: do not start the work
	}
	t := s.t
	wctx, cancel := t.deadline(ctx)
	c := s.pool.Get().(*call[T])
	c.ctx, c.wctx, c.next = ctx, wctx, next
	go c.run()

	select {
	case <-c.done:
		return s.collect(ctx, c, cancel)
	case <-wctx.Done():
	}
	if !c.state.CompareAndSwap(running, abandoned) {
		// The work finished as the deadline fired: its send on done is on
		// its way, and c.late says which came first.
		<-c.done
		return s.collect(ctx, c, cancel)
	}
	// c now belongs to the goroutine, which recycles it when the work
	// returns. Cancelling wctx changes nothing for the work (it is done
	// already) but releases it from ctx.
	cancel()
	if err := ctx.Err(); err != nil {
		return zero, policy.NoStamp, err // the caller's own cancellation passes through
	}
	now := t.clock.Nanotime()
	t.timedOut(ctx)
	return zero, policy.Stamp(now), t.err
}

// collect returns the outcome of a finished call, recycles c and cancels
// the deadline. A panic of the work goes on here, on the caller's goroutine.
func (s *stage[T]) collect(ctx context.Context, c *call[T], cancel context.CancelFunc) (T, policy.Stamp, error) {
	v, err, end := c.v, c.err, c.end
	late, panicked, pv, goexit := c.late, c.panicked, c.panicValue, c.goexit
	s.recycle(c)
	cancel()
	switch {
	case panicked:
		panic(pv)
	case goexit:
		runtime.Goexit()
	case late:
		t := s.t
		if !end.OK() {
			end = policy.Stamp(t.clock.Nanotime())
		}
		t.timedOut(ctx)
		var zero T
		return zero, end, t.err
	}
	return v, end, err
}

func (s *stage[T]) recycle(c *call[T]) {
	var zeroV T
	c.ctx, c.wctx, c.next = nil, nil, policy.Next[T]{}
	c.v, c.err, c.end = zeroV, nil, policy.NoStamp
	c.late, c.panicked, c.panicValue, c.goexit = false, false, nil, false
	c.state.Store(running)
	s.pool.Put(c)
}

// work runs on the goroutine the caller started.
func (c *call[T]) work() {
	returned := false
	defer func() {
		if !returned {
			if c.state.Load() == abandoned {
				return // nobody waits: not recovering lets the panic go on, with its own stack
			}
			c.fail(recover()) // recover must be called by the deferred function itself
			return
		}
		c.late = ours(c.ctx, c.wctx)
		if c.state.CompareAndSwap(running, finished) {
			c.done <- struct{}{} // buffered: never blocks
			return
		}
		c.stage.recycle(c) // abandoned: nobody reads c again
	}()
	c.v, c.end, c.err = c.next.Run(c.wctx)
	returned = true
}

// fail runs in work's deferred function when the work panicked (r is the
// recovered value) or called runtime.Goexit (r is nil). A caller still
// waiting gets the panic (or the Goexit) on its own goroutine. If the
// caller is gone, nobody can receive it: the panic goes on here and ends
// the program, as any panic on a goroutine does; r4c does not swallow it.
func (c *call[T]) fail(r any) {
	if !c.state.CompareAndSwap(running, finished) {
		if r != nil {
			panic(r) // the caller left meanwhile
		}
		return
	}
	if r != nil {
		c.panicked, c.panicValue = true, r
	} else {
		c.goexit = true // recover returns nil only for runtime.Goexit
	}
	c.done <- struct{}{}
}

// RunAsync implements [policy.Link].
func (s *stage[T]) RunAsync(ctx context.Context, next policy.AsyncNext[T]) *future.Future[T] {
	t := s.t
	if t.disabled {
		return next.Call(ctx)
	}
	wctx, cancel := t.deadline(ctx)
	started := false
	defer func() {
		if !started {
			cancel() // next.Call panicked
		}
	}()
	inner := next.Call(wctx)
	started = true

	pr := future.NewPromise[T]()
	var decided atomic.Bool // set by whichever of the deadline and the inner future completes pr
	timeout := func() {
		if decided.CompareAndSwap(false, true) {
			defer pr.Fail(t.err) // even if a listener of the event panics
			t.timedOut(ctx)
		}
	}
	stop := context.AfterFunc(wctx, func() {
		if ctx.Err() == nil { // our deadline, not the caller's cancellation
			timeout()
		}
	})
	return policy.ForwardTo(pr, inner, func(c policy.Outcome[T]) policy.Outcome[T] {
		stop()
		late := ours(ctx, wctx)
		cancel()
		if late {
			c.Dropped = true
			timeout() // fails pr even if a listener panics
			return c
		}
		if !decided.CompareAndSwap(false, true) {
			c.Dropped = true // the deadline completed the future
		}
		return c
	})
}
