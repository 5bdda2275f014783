package retry

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// Stage returns the pipeline stage of r for results of type T. Make it once
// when the pipeline is built; it is safe for concurrent use.
//
// Run calls the rest of the chain, and calls it again after a wait while
// an attempt fails with an error worth retrying (or, with RetryIfResult,
// returns a result that asks for a retry). The first attempt gets the
// chain's start reading; each later attempt starts afresh (next.Fresh()),
// so the stages inside read the clock and take their slots anew. Run
// returns the outcome of the last attempt with its end reading, with these
// exceptions: an error worth retrying on the last allowed attempt (or with
// the budget spent) becomes an [*ExhaustedError]; the caller's own
// cancellation is returned as is and never retried; a wait cut short by
// ctx returns ctx.Err() (context.Canceled or context.DeadlineExceeded),
// with the zero value and no reading. A call whose first attempt succeeds
// allocates nothing and reads no clock (with a budget, it reads the clock
// once unless an inner stage returned its end reading).
//
// RunAsync starts the first attempt on the calling goroutine and returns a
// future of its own. When an attempt's future fails with an error worth
// retrying, a goroutine waits on the clock and starts the next attempt;
// cancelling the returned future stops the wait or cancels the attempt in
// flight, and the goroutine ends. A cancelled attempt (future.ErrCancelled)
// is never retried.
func Stage[T any](r *Retry) policy.Link[T] { return stage[T]{r} }

type stage[T any] struct{ r *Retry }

var _ policy.Link[any] = stage[any]{}

// ok reports whether an attempt that returned (v, err) succeeded.
func (s stage[T]) ok(v T, err error) bool {
	return err == nil && (s.r.resultIf == nil || !s.r.resultIf(v))
}

// Run implements [policy.Link].
func (s stage[T]) Run(ctx context.Context, next policy.Next[T]) (T, policy.Stamp, error) {
	r := s.r
	if r.disabled {
		return next.Run(ctx)
	}
	v, end, err := next.Run(ctx)
	if r.budget != nil {
		r.budget.deposit(r.now(end))
	}
	if err == nil && r.resultIf == nil {
		r.successes.Add(1)
		return v, end, nil
	}
	return s.again(ctx, next, v, err, end)
}

// again judges the first attempt when it did not plainly succeed, and runs
// the retries. A panic in the user's code that judges an attempt (RetryOn
// and AbortOn predicates, RetryIfResult, a listener of the retry event)
// counts the call as a failure and goes on; a panic of an attempt itself
// goes on uncounted.
func (s stage[T]) again(ctx context.Context, next policy.Next[T], v T, err error, end policy.Stamp) (T, policy.Stamp, error) {
	r := s.r
	var prev time.Duration
	n := 1
	judging := true // set while the user's code judges attempt n
	defer func() {
		if judging {
			r.failed(n) // a predicate or a listener panicked
		}
	}()
	if s.ok(v, err) {
		judging = false
		r.successes.Add(1)
		return v, end, nil
	}
	for ; ; n++ {
		if err == nil {
			err = ErrRetryableResult
		}
		verdict := r.decide(ctx, n, err, end)
		if verdict != retry {
			judging = false
			switch verdict {
			case give:
				return v, end, r.exhaustedError(n, err, false)
			case giveBud:
				return v, end, r.exhaustedError(n, err, true)
			}
			return v, end, err
		}
		d := r.delay(n, prev)
		prev = d
		d = r.waitFor(err, n, d)
		r.publish(ctx, n, d, err)
		judging = false
		if werr := policy.Sleep(ctx, r.clock, d); werr != nil {
			r.cancelled.Add(1)
			var zero T
			return zero, policy.NoStamp, werr
		}
		r.retries.Add(1)
		v, end, err = next.Fresh().Run(ctx)
		judging = true
		if s.ok(v, err) {
			judging = false
			r.successesRetried.Add(1)
			return v, end, nil
		}
	}
}

// RunAsync implements [policy.Link].
func (s stage[T]) RunAsync(ctx context.Context, next policy.AsyncNext[T]) *future.Future[T] {
	if s.r.disabled {
		return next.Call(ctx)
	}
	a := &asyncCall[T]{s: s, ctx: ctx, next: next, pr: future.NewPromise[T](), stop: make(chan struct{})}
	a.pr.OnCancel(a.cancel)
	a.start()
	return a.pr.Future()
}

// asyncCall is one asynchronous call through a retry. Its attempts run one
// after another: n, prev and the decision fields are only touched by the
// goroutine that handles the current attempt, and each hand-over (a
// future's completion, a go statement) orders them.
type asyncCall[T any] struct {
	s    stage[T]
	ctx  context.Context
	next policy.AsyncNext[T]
	pr   *future.Promise[T]
	n    int           // attempts started
	prev time.Duration // the last wait

	mu        sync.Mutex
	ended     bool              // the call's outcome is decided or being decided, or it was cancelled
	cancelled bool              // the returned future was cancelled
	cur       *future.Future[T] // the attempt in flight
	stop      chan struct{}     // closed when the returned future is cancelled
}

// start starts the next attempt and arranges for done to follow it.
func (a *asyncCall[T]) start() {
	a.mu.Lock()
	if a.ended {
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	a.n++
	f := a.next.Call(a.ctx)
	a.mu.Lock()
	if a.ended {
		a.mu.Unlock()
		f.Cancel()
		return
	}
	a.cur = f
	a.mu.Unlock()
	f.OnComplete(a.done)
}

// done handles the outcome of the attempt in flight. If the user's code
// that judges it (a predicate, RetryIfResult, a listener) panics, the call
// counts as a failure, the returned future completes with the attempt's
// outcome, and the panic goes on.
func (a *asyncCall[T]) done(v T, err error) {
	judged := false
	defer func() {
		if judged {
			return
		}
		r := recover() // nil for runtime.Goexit, which goes on by itself
		func() {
			defer func() {
				if r != nil {
					_ = recover() // a panic of the returned future's callbacks: the first one goes on
				}
			}()
			a.abandon(v, err)
		}()
		if r != nil {
			panic(r)
		}
	}()
	a.judge(v, err)
	judged = true
}

// abandon ends the call after a panic while judging an attempt.
func (a *asyncCall[T]) abandon(v T, err error) {
	a.mu.Lock()
	a.ended = true
	cancelled := a.cancelled // then the cancellation counted the call
	a.mu.Unlock()
	if !cancelled {
		a.s.r.failed(a.n)
	}
	a.complete(v, err)
}

// judge decides what follows the attempt in flight.
func (a *asyncCall[T]) judge(v T, err error) {
	r := a.s.r
	if a.n == 1 && r.budget != nil {
		r.budget.deposit(r.clock.Nanotime())
	}
	if a.s.ok(v, err) {
		if a.n == 1 {
			a.finish(&r.successes, v, nil)
		} else {
			a.finish(&r.successesRetried, v, nil)
		}
		return
	}
	if err == nil {
		err = ErrRetryableResult
	}
	if errors.Is(err, future.ErrCancelled) {
		a.finish(&r.cancelled, v, err)
		return
	}
	if !a.claim() {
		return // cancelled meanwhile: the cancellation counted the call
	}
	switch r.decide(a.ctx, a.n, err, policy.NoStamp) {
	case stop:
		a.complete(v, err)
		return
	case give:
		a.complete(v, r.exhaustedError(a.n, err, false))
		return
	case giveBud:
		a.complete(v, r.exhaustedError(a.n, err, true))
		return
	}
	d := r.delay(a.n, a.prev)
	a.prev = d
	d = r.waitFor(err, a.n, d)
	r.publish(a.ctx, a.n, d, err)
	if !a.release() {
		r.cancelled.Add(1) // cancelled while deciding
		return
	}
	go a.wait(d)
}

// wait waits d on the clock, then starts the next attempt; it ends early
// when ctx is done or the returned future is cancelled.
func (a *asyncCall[T]) wait(d time.Duration) {
	r := a.s.r
	if d > 0 {
		t := r.clock.NewTimer(d)
		select {
		case <-t.C():
		case <-a.ctx.Done():
			t.Stop()
		case <-a.stop:
			t.Stop()
			return
		}
	}
	if err := a.ctx.Err(); err != nil {
		var zero T
		a.finish(&r.cancelled, zero, err)
		return
	}
	r.retries.Add(1)
	a.start()
}

// claim marks the call as deciding its outcome, so that a cancellation
// arriving meanwhile does not count it twice. It reports false if the call
// has already ended (it was cancelled).
func (a *asyncCall[T]) claim() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ended {
		return false
	}
	a.ended = true
	return true
}

// release undoes claim when the call goes on to another attempt. It
// reports false if the returned future was cancelled meanwhile.
func (a *asyncCall[T]) release() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancelled {
		return false
	}
	a.ended = false
	return true
}

// finish counts the call in c and completes the returned future with
// (v, err), unless the call has already ended.
func (a *asyncCall[T]) finish(c *atomic.Int64, v T, err error) {
	if !a.claim() {
		return
	}
	c.Add(1)
	a.complete(v, err)
}

func (a *asyncCall[T]) complete(v T, err error) {
	if err != nil {
		a.pr.Fail(err)
	} else {
		a.pr.Complete(v)
	}
}

// cancel runs when the returned future is cancelled: it stops a wait and
// cancels the attempt in flight.
func (a *asyncCall[T]) cancel() {
	a.mu.Lock()
	counted := a.ended
	a.ended = true
	a.cancelled = true
	cur := a.cur
	a.mu.Unlock()
	close(a.stop)
	if !counted {
		a.s.r.cancelled.Add(1)
	}
	if cur != nil {
		cur.Cancel()
	}
}
