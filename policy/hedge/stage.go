package hedge

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// Stage returns the pipeline stage of h for calls that return a T. Make it
// once, when the pipeline is built; it is safe for concurrent use and may be
// shared by any number of calls.
//
// # Synchronous calls (Run)
//
// The first attempt starts at once. While no attempt has succeeded, another
// one starts every Delay (measured on the hedge's clock from the start of
// the one before), up to MaxHedged more. Each attempt runs the stages inside
// the hedge afresh (they read the clock themselves and take their own
// slots) with a context.WithCancel child of the caller's ctx, on a goroutine
// of its own; the caller's goroutine waits for the first success.
//
//   - The first attempt to succeed wins: Run returns its value at once and
//     cancels the ctx of every other attempt. A loser keeps its goroutine
//     (and whatever the stages inside hold for it, such as a slot) until its
//     function returns, which is at once if the function honours its ctx;
//     a function that ignores its ctx runs on after the call has returned.
//     The winner's ctx is cancelled too, once Run returns: a result that
//     still needs its ctx (an HTTP response body) must be read inside the
//     function.
//   - A failed attempt does not end the call while other attempts run, and
//     it does not start another one early: a hedge acts on slowness, not on
//     errors (that is the retry's job, outside the hedge). When every
//     attempt started has failed, Run returns the error of the last one to
//     fail, even if the schedule would have allowed more attempts.
//   - An attempt rejected by a policy inside the hedge (errors.Is(err,
//     policy.ErrRejected): an adaptive limit, a bulkhead, a rate limiter)
//     stops the hedge from starting any more attempts; those already
//     running go on.
//   - When the caller's ctx is done, Run cancels every attempt and returns
//     ctx.Err() at once; if it is done when Run is called, Run starts no
//     attempt at all.
//   - A panic in an attempt, or runtime.Goexit (t.FailNow), is raised again
//     on the caller's goroutine once the stages inside have released what
//     they held, after the other attempts are cancelled. The original
//     goroutine's stack is lost. If the call has already returned, the
//     panic goes on in the attempt's own goroutine, which ends the program
//     like any unrecovered panic.
//
// Run returns the clock reading the winning (or last failing) attempt's
// stages took when it ended, if any. Each call allocates: its bookkeeping,
// a timer, and per attempt a goroutine and a context; a disabled hedge
// calls the rest of the chain directly and allocates nothing.
//
// # Asynchronous calls (RunAsync)
//
// The same rules hold with futures. The first attempt's future is made on
// the calling goroutine; if it is complete already, RunAsync returns it as
// it is. Otherwise a goroutine of the call waits for the attempts' futures,
// starts the extra attempts (their functions are called on that goroutine)
// and completes the returned future with the first success, after
// cancelling the other attempts' futures and contexts, or with the last
// failure. Cancelling the returned future, or the caller's ctx being done,
// cancels every attempt's future and ctx; the future then fails with
// [future.ErrCancelled] or ctx.Err() (at once, with no attempt, if ctx is
// done when RunAsync is called). That goroutine ends when the call does.
func Stage[T any](h *Hedge) policy.Link[T] { return &stage[T]{h: h} }

type stage[T any] struct {
	h *Hedge
	// calls recycles the bookkeeping of synchronous calls (never anything
	// a user sees): a call's state goes back once the call and every one of
	// its attempts have finished with it.
	calls sync.Pool
}

var _ policy.Link[any] = (*stage[any])(nil)

// How an attempt ended.
const (
	returned uint8 = iota
	panicked
	exited // runtime.Goexit
)

// result is what an attempt delivers to the call waiting for it.
type result[T any] struct {
	v       T
	err     error
	st      policy.Stamp
	attempt int // 1 for the first
	how     uint8
	p       any // the panic value when how == panicked
}

// syncCall is the state of one synchronous hedged call, shared by the
// caller's goroutine and the attempts' goroutines.
type syncCall[T any] struct {
	// results has room for every attempt a call may start, so an attempt
	// never blocks when it delivers, even after the call has returned.
	results chan result[T]
	cancels [1 + MaxMaxHedged]context.CancelFunc

	// refs counts who still uses the state: the caller, until Run returns,
	// and each attempt, until it has delivered. The last one recycles it.
	refs atomic.Int32
	pool *sync.Pool

	mu     sync.Mutex
	closed bool // set once the caller stops reading results; guarded by mu
}

func (s *stage[T]) Run(ctx context.Context, next policy.Next[T]) (T, policy.Stamp, error) {
	h := s.h
	if h.disabled {
		return next.Run(ctx)
	}
	h.calls.Add(1)
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, policy.NoStamp, err
	}
	c, _ := s.calls.Get().(*syncCall[T])
	if c == nil {
		c = &syncCall[T]{results: make(chan result[T], h.attempts), pool: &s.calls}
	}
	c.refs.Store(1)
	next = next.Fresh()
	// The delay runs from before the first attempt starts: when the
	// attempt is seen (by its server, on a ManualClock in a test), the
	// hedge's timer is already armed.
	timer := h.clock.NewTimer(h.delay)
	c.start(ctx, next, 1)
	started, running := 1, 1
	tick := timer.C()
	defer func() {
		timer.Stop()
		c.close() // after a panic too: a later panic goes on in its own goroutine
		c.cancelAll()
		c.release()
	}()
	var last result[T]
	for {
		select {
		case r := <-c.results:
			running--
			reraise(r)
			if r.err == nil {
				if r.attempt > 1 {
					h.wins.Add(1)
				}
				c.end()
				return r.v, r.st, nil
			}
			last = r
			if tick != nil && errors.Is(r.err, policy.ErrRejected) {
				timer.Stop()
				tick = nil
				h.stopped.Add(1)
			}
			if running == 0 {
				c.end()
				return last.v, last.st, last.err
			}
		case <-tick:
			started++
			running++
			h.hedges.Add(1)
			h.publishStarted(ctx, started)
			c.start(ctx, next, started)
			if started < h.attempts {
				timer = h.clock.NewTimer(h.delay)
				tick = timer.C()
			} else {
				tick = nil
			}
		case <-ctx.Done():
			c.end()
			var zero T
			return zero, policy.NoStamp, ctx.Err()
		}
	}
}

// start runs attempt number attempt on a goroutine of its own, with a ctx
// of its own.
func (c *syncCall[T]) start(ctx context.Context, next policy.Next[T], attempt int) {
	actx, cancel := context.WithCancel(ctx)
	c.cancels[attempt-1] = cancel
	c.refs.Add(1)
	go c.run(actx, next, attempt)
}

// run is the body of an attempt's goroutine. It must not touch c after
// releasing it.
func (c *syncCall[T]) run(ctx context.Context, next policy.Next[T], attempt int) {
	done := false
	defer func() {
		if done {
			return
		}
		r := result[T]{attempt: attempt, how: exited, st: policy.NoStamp}
		if p := recover(); p != nil {
			r.how, r.p = panicked, p
		}
		delivered := c.deliverAbnormal(r)
		c.release()
		if !delivered && r.how == panicked {
			panic(r.p) // the call has returned: nobody can take it over
		}
	}()
	v, st, err := next.Run(ctx)
	done = true
	c.results <- result[T]{v: v, err: err, st: st, attempt: attempt}
	c.release()
}

// release drops one reference to c; the last one empties it and puts it
// back in its pool.
func (c *syncCall[T]) release() {
	if c.refs.Add(-1) != 0 {
		return
	}
	for len(c.results) > 0 {
		<-c.results
	}
	c.cancels = [1 + MaxMaxHedged]context.CancelFunc{}
	c.closed = false
	c.pool.Put(c)
}

// deliverAbnormal hands a panic or a Goexit to the caller, unless the call
// has ended; it reports whether it did.
func (c *syncCall[T]) deliverAbnormal(r result[T]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.results <- r
	return true
}

// end stops the call from taking over attempts' panics, then raises any
// panic (or Goexit) an attempt delivered before that.
func (c *syncCall[T]) end() {
	c.close()
	for {
		select {
		case r := <-c.results:
			reraise(r)
		default:
			return
		}
	}
}

// close stops the call from taking over attempts' panics.
func (c *syncCall[T]) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
}

// cancelAll cancels the ctx of every attempt started.
func (c *syncCall[T]) cancelAll() {
	for _, cancel := range c.cancels {
		if cancel == nil {
			return
		}
		cancel()
	}
}

// reraise continues, on the calling goroutine, a panic or Goexit that r
// reports.
func reraise[T any](r result[T]) {
	switch r.how {
	case panicked:
		panic(r.p)
	case exited:
		runtime.Goexit()
	}
}

// asyncCall is the state of one asynchronous hedged call.
type asyncCall[T any] struct {
	h       *Hedge
	next    policy.AsyncNext[T]
	pr      *future.Promise[T]
	results chan result[T] // room for every attempt: OnComplete never blocks
	futures [1 + MaxMaxHedged]*future.Future[T]
	cancels [1 + MaxMaxHedged]context.CancelFunc
}

func (s *stage[T]) RunAsync(ctx context.Context, next policy.AsyncNext[T]) *future.Future[T] {
	h := s.h
	if h.disabled {
		return next.Call(ctx)
	}
	h.calls.Add(1)
	if err := ctx.Err(); err != nil {
		return future.Failed[T](err)
	}
	// callCtx is cancelled when the call ends or its future is cancelled;
	// every attempt's ctx derives from it.
	callCtx, cancelCall := context.WithCancel(ctx)
	actx, cancel := context.WithCancel(callCtx)
	called := false
	defer func() {
		if !called { // the call panicked: let go of the contexts
			cancel()
			cancelCall()
		}
	}()
	// The delay runs from before the first attempt starts, as in the
	// synchronous stage; the timer is armed only once the attempt is not
	// over at once (a rejection need not pay for one), for what remains.
	start := h.clock.Nanotime()
	f := next.Call(actx)
	called = true
	select {
	case <-f.Done():
		// Over already (a rejection, a cached value): nothing to hedge.
		cancel()
		cancelCall()
		if _, err := f.Get(ctx); err != nil && errors.Is(err, policy.ErrRejected) {
			h.stopped.Add(1)
		}
		return f
	default:
	}
	a := &asyncCall[T]{h: h, next: next, pr: future.NewPromise[T](), results: make(chan result[T], h.attempts)}
	a.futures[0], a.cancels[0] = f, cancel
	f.OnComplete(a.deliver(1))
	a.pr.OnCancel(cancelCall)
	timer := h.clock.NewTimer(h.delay - time.Duration(h.clock.Nanotime()-start))
	go a.wait(ctx, callCtx, cancelCall, timer)
	return a.pr.Future()
}

// deliver returns the OnComplete function of attempt number attempt.
func (a *asyncCall[T]) deliver(attempt int) func(T, error) {
	return func(v T, err error) {
		a.results <- result[T]{v: v, err: err, attempt: attempt}
	}
}

// wait runs on the call's own goroutine until the call ends.
func (a *asyncCall[T]) wait(ctx, callCtx context.Context, cancelCall context.CancelFunc, timer policy.Timer) {
	h := a.h
	started, running := 1, 1
	tick := timer.C()
	defer func() {
		timer.Stop()
		a.cancelAll()
		cancelCall()
	}()
	var lastErr error
	for {
		select {
		case r := <-a.results:
			running--
			if r.err == nil {
				if r.attempt > 1 {
					h.wins.Add(1)
				}
				a.cancelAll() // the losers free their slots before the caller hears
				a.pr.Complete(r.v)
				return
			}
			lastErr = r.err
			if tick != nil && errors.Is(r.err, policy.ErrRejected) {
				timer.Stop()
				tick = nil
				h.stopped.Add(1)
			}
			if running == 0 {
				a.cancelAll()
				a.pr.Fail(lastErr)
				return
			}
		case <-tick:
			started++
			running++
			h.hedges.Add(1)
			h.publishStarted(ctx, started)
			a.start(callCtx, started)
			if started < h.attempts {
				timer = h.clock.NewTimer(h.delay)
				tick = timer.C()
			} else {
				tick = nil
			}
		case <-callCtx.Done():
			a.cancelAll()
			err := ctx.Err()
			if err == nil {
				err = future.ErrCancelled // the returned future was cancelled
			}
			a.pr.Fail(err)
			return
		}
	}
}

// start calls the rest of the chain for attempt number attempt.
func (a *asyncCall[T]) start(callCtx context.Context, attempt int) {
	actx, cancel := context.WithCancel(callCtx)
	a.cancels[attempt-1] = cancel
	f := a.next.Call(actx)
	a.futures[attempt-1] = f
	f.OnComplete(a.deliver(attempt))
}

// cancelAll cancels every attempt's future and ctx; completed futures
// ignore it.
func (a *asyncCall[T]) cancelAll() {
	for i, cancel := range a.cancels {
		if cancel == nil {
			return
		}
		if f := a.futures[i]; f != nil {
			f.Cancel()
		}
		cancel()
	}
}
