package pipeline

import (
	"context"
	"errors"
	"sync"

	"github.com/resilience4cata/r4c/future"
)

// ErrNilPipeline is returned by the methods of a [Bound] made by Bind from a
// nil pipeline.
var ErrNilPipeline = errors.New("r4c: pipeline: nil pipeline")

// Bound is a pipeline bound, once, to a function of one argument: each call
// gives only the argument. It is what a wrapper method needs (cmd/r4cgen's
// generated wrappers use it, with a method's parameters as the argument),
// and what a hand-written one can use instead of a closure that captures
// the arguments, which escapes to the heap on every call.
//
// A Bound is safe for concurrent use. Make it with [Bind]; the zero Bound is
// not usable.
//
// # Allocations
//
// Each call needs a place for its argument that outlives nothing the call
// does. When no stage of the pipeline can call the function after Execute
// has returned, a call takes a recycled record from a pool, stores the
// argument in it and gives it back when the pipeline returns: the call
// allocates nothing beyond what the pipeline itself allocates for a
// capture-free function (nothing at all on the success and rejection paths
// of the synchronous policies). A pipeline with an enabled hedge, or an
// enabled timeout in its default mode, may call the function on a goroutine
// of its own after the caller has been answered (a hedge's losing attempt,
// a call the timeout abandoned); there a call allocates one record, since
// nothing could tell when that goroutine is done with it. Those stages
// allocate more than that themselves (a deadline context and a goroutine
// per call, or per attempt).
type Bound[T, A any] struct {
	p    *Pipeline[T]
	fn   func(context.Context, A) (T, error)
	pool sync.Pool // of *frame[T, A], when the pipeline does not detach
}

// frame is the record a call keeps its argument in. run is f.call, bound
// once when the frame is made, so that passing it to the pipeline
// allocates nothing.
type frame[T, A any] struct {
	b   *Bound[T, A]
	arg A
	run func(context.Context) (T, error)
}

func (f *frame[T, A]) call(ctx context.Context) (T, error) { return f.b.fn(ctx, f.arg) }

// Bind returns p bound to fn: [Bound.ExecuteContext](ctx, arg) runs
// fn(ctx', arg) through p as [Pipeline.ExecuteContext] runs a function, ctx'
// being the ctx the inner policies give. fn must not keep arg's address
// (it gets a copy). Bind allocates the Bound; a nil p or fn makes every
// call fail with [ErrNilPipeline] or [ErrNilFunc].
func Bind[T, A any](p *Pipeline[T], fn func(ctx context.Context, arg A) (T, error)) *Bound[T, A] {
	b := &Bound[T, A]{p: p, fn: fn}
	if p != nil && !p.detaches {
		b.pool.New = func() any {
			f := &frame[T, A]{b: b}
			f.run = f.call
			return f
		}
	}
	return b
}

// Pipeline returns the pipeline b runs its calls through.
func (b *Bound[T, A]) Pipeline() *Pipeline[T] { return b.p }

// Execute runs fn(ctx, arg) through the pipeline on the calling goroutine,
// with context.Background() as the caller's ctx, like [Pipeline.Execute].
func (b *Bound[T, A]) Execute(arg A) (T, error) {
	return b.ExecuteContext(context.Background(), arg)
}

// ExecuteContext runs fn(ctx', arg) through the pipeline on the calling
// goroutine, like [Pipeline.ExecuteContext]: it returns fn's outcome or the
// error of the policy that stopped it, and the caller's own cancellation of
// ctx frees what the call holds without counting as a failure. A panic in
// fn goes on once the policies have freed what they hold.
func (b *Bound[T, A]) ExecuteContext(ctx context.Context, arg A) (T, error) {
	switch {
	case b.p == nil:
		var zero T
		return zero, ErrNilPipeline
	case b.fn == nil:
		var zero T
		return zero, ErrNilFunc
	case b.p.detaches:
		// A stage may call fn after we return: the argument lives in a
		// record of this call alone.
		return b.p.ExecuteContext(ctx, func(ctx context.Context) (T, error) { return b.fn(ctx, arg) })
	}
	f := b.pool.Get().(*frame[T, A])
	f.arg = arg
	v, err := b.p.ExecuteContext(ctx, f.run)
	// Every call of f.run has returned: no stage of this pipeline keeps the
	// function past the call. After a panic f is simply not recycled.
	var zero A
	f.arg = zero
	b.pool.Put(f)
	return v, err
}

// BoundFuture is a pipeline bound, once, to an asynchronous function of
// one argument, as [Bound] is to a synchronous one: each call gives only
// the argument. It is safe for concurrent use. Make it with [BindFuture];
// the zero BoundFuture is not usable.
//
// # Allocations
//
// ExecuteFuture calls the function on the caller's goroutine before it
// returns, and calls it again later only to start another attempt (an
// enabled retry or hedge). Without those a call keeps its argument in a
// recycled record and allocates nothing beyond what [Pipeline.ExecuteFuture]
// allocates for a capture-free function; with them it allocates one record
// of its own, since a later attempt may read it.
type BoundFuture[T, A any] struct {
	p    *Pipeline[T]
	fn   func(context.Context, A) *future.Future[T]
	pool sync.Pool // of *futureFrame[T, A], when the pipeline does not repeat
}

type futureFrame[T, A any] struct {
	b   *BoundFuture[T, A]
	arg A
	run func(context.Context) *future.Future[T]
}

func (f *futureFrame[T, A]) call(ctx context.Context) *future.Future[T] { return f.b.fn(ctx, f.arg) }

// BindFuture returns p bound to fn: [BoundFuture.ExecuteFuture](ctx, arg)
// runs fn(ctx', arg) through p as [Pipeline.ExecuteFuture] runs a
// function. fn must not keep arg's address. A nil p or fn makes every call
// return a future failed with [ErrNilPipeline] or [ErrNilFunc].
func BindFuture[T, A any](p *Pipeline[T], fn func(ctx context.Context, arg A) *future.Future[T]) *BoundFuture[T, A] {
	b := &BoundFuture[T, A]{p: p, fn: fn}
	if p != nil && !p.repeats {
		b.pool.New = func() any {
			f := &futureFrame[T, A]{b: b}
			f.run = f.call
			return f
		}
	}
	return b
}

// Pipeline returns the pipeline b runs its calls through.
func (b *BoundFuture[T, A]) Pipeline() *Pipeline[T] { return b.p }

// ExecuteFuture runs the asynchronous call fn(ctx', arg) through the
// pipeline, as [Pipeline.ExecuteFuture] does: every policy holds its slot
// or permit until the future fn returns completes, a rejection returns a
// failed future at once without calling fn, and cancelling the returned
// future cancels the call.
func (b *BoundFuture[T, A]) ExecuteFuture(ctx context.Context, arg A) *future.Future[T] {
	switch {
	case b.p == nil:
		return future.Failed[T](ErrNilPipeline)
	case b.fn == nil:
		return future.Failed[T](ErrNilFunc)
	case b.p.repeats:
		return b.p.ExecuteFuture(ctx, func(ctx context.Context) *future.Future[T] { return b.fn(ctx, arg) })
	}
	f := b.pool.Get().(*futureFrame[T, A])
	f.arg = arg
	fut := b.p.ExecuteFuture(ctx, f.run)
	// fn has been called, or never will be: without a retry or a hedge
	// nothing starts another attempt.
	var zero A
	f.arg = zero
	b.pool.Put(f)
	return fut
}
