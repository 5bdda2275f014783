package future

import (
	"context"
	"sync"
)

// ErrCancelled is the error of a future that was cancelled with
// [Future.Cancel]. It matches context.Canceled with errors.Is, so code that
// treats a cancelled ctx as "the caller gave up" treats it the same way.
var ErrCancelled error = cancelledError{}

type cancelledError struct{}

func (cancelledError) Error() string        { return "r4c: future cancelled" }
func (cancelledError) Is(target error) bool { return target == context.Canceled }

// Future is the result of an asynchronous call: it completes once, with a
// value or an error, and never changes after. It is safe for concurrent
// use. The zero value is not usable: make one with [NewPromise],
// [Completed] or [Failed].
type Future[T any] struct {
	done chan struct{}

	mu        sync.Mutex
	completed bool // set under mu before callbacks run
	cancelled bool // completed by Cancel
	v         T
	err       error
	callbacks []func(T, error)
	onCancel  []func()
}

// Promise is the side of a [Future] that completes it. It is safe for
// concurrent use: several goroutines may race to complete it, and the first
// wins.
type Promise[T any] struct{ f *Future[T] }

// NewPromise returns a promise whose future is pending.
func NewPromise[T any]() *Promise[T] {
	return &Promise[T]{f: &Future[T]{done: make(chan struct{})}}
}

// Completed returns a future already completed with v: Get returns v and
// a nil error at once, and Cancel returns false.
func Completed[T any](v T) *Future[T] {
	p := NewPromise[T]()
	p.Complete(v)
	return p.f
}

// Failed returns a future already failed with err: Get returns the zero
// value and err at once, and Cancel returns false.
func Failed[T any](err error) *Future[T] {
	p := NewPromise[T]()
	p.Fail(err)
	return p.f
}

// Future returns the promise's future (always the same one).
func (p *Promise[T]) Future() *Future[T] { return p.f }

// Complete completes the future with v: it runs the OnComplete functions
// on the calling goroutine, then closes Done. If one of them panics, the
// others still run, Done is closed and the first panic goes on out of
// Complete (see [Future.OnComplete]). It reports whether this call
// completed the future: a second completion (or one after Cancel) is a
// no-op and returns false.
func (p *Promise[T]) Complete(v T) bool { return p.f.complete(v, nil, false) }

// Fail completes the future with err (a nil err completes it with the zero
// value and no error). It reports whether this call completed it, like
// Complete.
func (p *Promise[T]) Fail(err error) bool {
	var zero T
	return p.f.complete(zero, err, false)
}

// OnCancel registers fn to run when the future is cancelled through
// [Future.Cancel], on the cancelling goroutine, before Cancel returns and
// before Done is closed. The side doing the work uses it to stop the work.
// If the future was already cancelled, fn runs at once on the calling
// goroutine, so work started late is stopped too; if it was completed
// otherwise, fn is never called.
func (p *Promise[T]) OnCancel(fn func()) {
	f := p.f
	f.mu.Lock()
	if f.completed {
		cancelled := f.cancelled
		f.mu.Unlock()
		if cancelled {
			fn()
		}
		return
	}
	f.onCancel = append(f.onCancel, fn)
	f.mu.Unlock()
}

// complete completes f with v and err, or with ErrCancelled running the
// OnCancel functions first if cancel is set. It reports whether this call
// completed f. Marking f complete and taking its functions happen in one
// step under mu, so a function registered concurrently either is taken
// here or sees f complete.
func (f *Future[T]) complete(v T, err error, cancel bool) bool {
	f.mu.Lock()
	if f.completed {
		f.mu.Unlock()
		return false
	}
	f.completed, f.cancelled = true, cancel
	f.v, f.err = v, err
	cbs, hooks := f.callbacks, f.onCancel
	f.callbacks, f.onCancel = nil, nil
	f.mu.Unlock()
	defer close(f.done) // even if a function panics, waiters are released
	if !cancel {
		hooks = nil
	}
	if len(hooks) == 0 && len(cbs) == 0 {
		return true
	}
	r := runner[T]{hooks: hooks, cbs: cbs, v: v, err: err}
	r.runAll()
	return true
}

// runner runs the functions of a completion, OnCancel functions first, so
// that a panic in one does not stop the others: every function runs, then
// the first panic goes on, on the completing goroutine. A function that
// calls runtime.Goexit (which nothing can stop) has the ones after it run
// in its deferred call, and then the goroutine exits (or, if an earlier
// function panicked, that panic goes on instead).
type runner[T any] struct {
	hooks    []func()
	cbs      []func(T, error)
	v        T
	err      error
	next     int // the index of the next function, hooks then callbacks
	panicked bool
	value    any // the first panic's value
}

func (r *runner[T]) runAll() {
	r.runFrom()
	if r.panicked {
		panic(r.value)
	}
}

// runFrom runs the functions from r.next on.
func (r *runner[T]) runFrom() {
	for r.next < len(r.hooks)+len(r.cbs) {
		i := r.next
		r.next++
		r.one(i)
	}
}

// one runs function number i, keeping its panic.
func (r *runner[T]) one(i int) {
	ok := false
	defer func() {
		if ok {
			return
		}
		p := recover()
		if p == nil { // runtime.Goexit: run the rest now, it cannot be stopped
			r.runFrom()
			if r.panicked {
				panic(r.value)
			}
			return
		}
		if !r.panicked {
			r.panicked, r.value = true, p
		}
	}()
	if i < len(r.hooks) {
		r.hooks[i]()
	} else {
		r.cbs[i-len(r.hooks)](r.v, r.err)
	}
	ok = true
}

// Get waits until the future completes and returns its value and error, or
// returns the zero value and ctx.Err() if ctx is done first. A future that
// is already complete returns its outcome even if ctx is done. Giving up
// through ctx does not cancel the future (the work goes on): call Cancel
// for that. Get returns only after every OnComplete function registered
// before completion has returned, and allocates nothing.
func (f *Future[T]) Get(ctx context.Context) (T, error) {
	select {
	case <-f.done:
		return f.v, f.err
	default:
	}
	select {
	case <-f.done:
		return f.v, f.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Done returns a channel closed once the future is complete and every
// OnComplete function has returned.
func (f *Future[T]) Done() <-chan struct{} { return f.done }

// Cancel gives up on the future: it completes it with [ErrCancelled], runs
// the functions registered by [Promise.OnCancel] (which stop the work),
// then the OnComplete functions, and closes Done, all on the calling
// goroutine before it returns. It reports whether it took effect: true
// once, false if the future was already complete (or cancelled). A later
// Complete or Fail is a no-op. A panic in one of those functions lets every
// other one run; the first panic then goes on out of Cancel, with Done
// closed.
func (f *Future[T]) Cancel() bool {
	var zero T
	return f.complete(zero, ErrCancelled, true)
}

// OnComplete registers fn to run with the future's outcome on the goroutine
// that completes it (Complete, Fail or Cancel), in registration order,
// before Done is closed and Get returns, so that what fn records is visible
// to whoever returns from Get. If the future is already complete, fn runs at
// once on the calling goroutine. fn must be quick and must not block: it
// delays the completing goroutine and every waiter.
//
// A panic in fn does not stop the others: every function registered runs,
// then the first panic is raised again in the goroutine that completed the
// future, out of its Complete, Fail or Cancel call, with Done already
// closed (so waiters are released and Get returns the outcome). A function
// registered after completion runs at once, and its panic goes on at once,
// out of OnComplete.
func (f *Future[T]) OnComplete(fn func(v T, err error)) {
	f.mu.Lock()
	if !f.completed {
		f.callbacks = append(f.callbacks, fn)
		f.mu.Unlock()
		return
	}
	v, err := f.v, f.err
	f.mu.Unlock()
	fn(v, err)
}
