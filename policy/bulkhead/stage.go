package bulkhead

import (
	"context"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// Stage returns the pipeline stage of b for calls of result type T. It is a
// small value; make it once, when the pipeline is built.
//
// Run (the synchronous path) takes a slot as [Bulkhead.Acquire] does, runs
// the stages inside, and gives the slot back when they return or panic (the
// panic goes on). It reads no clock: it passes next.Start inward (cleared
// with next.Fresh after a wait) and the inner end reading upward. The
// admitted and the fail-fast rejected paths allocate nothing.
//
// RunAsync (the asynchronous path) takes a slot the same way, waiting on
// the calling goroutine if it must, and holds it until the inner future
// completes or is cancelled. A rejection returns a failed future at once.
// Cancelling the returned future cancels the inner one and frees the slot.
// The slot is freed before the returned future completes, through
// [policy.Forward], whatever the other functions on the inner future do: a
// panicking OnComplete registered before the bulkhead's own neither keeps
// the slot nor leaves the returned future pending.
func Stage[T any](b *Bulkhead) policy.Link[T] { return stage[T]{b} }

type stage[T any] struct{ b *Bulkhead }

var _ policy.Link[any] = stage[any]{}

// Run implements [policy.Link].
func (s stage[T]) Run(ctx context.Context, next policy.Next[T]) (T, policy.Stamp, error) {
	b := s.b
	if b.disabled {
		return next.Run(ctx)
	}
	if !b.tryAcquire() {
		var err error
		if b.maxWait <= 0 {
			err = b.reject(ctx)
		} else {
			err = b.wait(ctx)
		}
		if err != nil {
			var zero T
			return zero, policy.NoStamp, err
		}
		next = next.Fresh() // the outer reading is stale after a wait
	}
	defer b.release()
	return next.Run(ctx)
}

// RunAsync implements [policy.Link].
func (s stage[T]) RunAsync(ctx context.Context, next policy.AsyncNext[T]) *future.Future[T] {
	b := s.b
	if b.disabled {
		return next.Call(ctx)
	}
	if err := b.Acquire(ctx); err != nil {
		return future.Failed[T](err)
	}
	held := true
	defer func() {
		if held {
			b.release() // next.Call panicked
		}
	}()
	inner := next.Call(ctx)
	held = false
	return policy.Forward(inner, func(c policy.Outcome[T]) policy.Outcome[T] { b.release(); return c })
}
