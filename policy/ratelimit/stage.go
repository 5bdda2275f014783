package ratelimit

import (
	"context"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// Stage returns the pipeline stage of l for calls of result type T. It is a
// small value; make it once, when the pipeline is built.
//
// Run (the synchronous path) takes a permit as [Limiter.Wait] does and runs
// the stages inside. It uses next.Start as "now" when an outer stage read
// the clock already; otherwise it reads the clock once and passes its
// reading inward with next.WithStart. After a wait it passes next.Fresh.
// The inner end reading goes upward unchanged. The admitted and the
// rejected paths allocate nothing.
//
// RunAsync (the asynchronous path) takes a permit the same way, waiting on
// the calling goroutine if it must, and returns the inner future itself: a
// permit is spent when taken, so there is nothing to hold or give back when
// the call completes. A refusal returns a failed future at once.
func Stage[T any](l *Limiter) policy.Link[T] { return stage[T]{l} }

type stage[T any] struct{ l *Limiter }

var _ policy.Link[any] = stage[any]{}

// Run implements [policy.Link].
func (s stage[T]) Run(ctx context.Context, next policy.Next[T]) (T, policy.Stamp, error) {
	l := s.l
	if l.disabled {
		return next.Run(ctx)
	}
	var now int64
	if next.Start.OK() {
		now = next.Start.At()
	} else {
		now = l.clock.Nanotime()
		next = next.WithStart(now)
	}
	waited, err := l.wait(ctx, now)
	if err != nil {
		var zero T
		return zero, policy.NoStamp, err
	}
	if waited {
		next = next.Fresh()
	}
	return next.Run(ctx)
}

// RunAsync implements [policy.Link].
func (s stage[T]) RunAsync(ctx context.Context, next policy.AsyncNext[T]) *future.Future[T] {
	if err := s.l.Wait(ctx); err != nil {
		return future.Failed[T](err)
	}
	return next.Call(ctx)
}
