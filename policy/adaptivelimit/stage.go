package adaptivelimit

import (
	"context"
	"errors"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// Stage returns the pipeline stage of l, for results of type T. Make it
// once, when the pipeline is built; it is safe for concurrent use.
//
// Run takes a slot (or returns l's [*LimitExceededError] at once, or waits
// under MaxWait), runs the rest of the chain, and gives the slot back with
// the outcome: a nil error is a sample; an error in DropOn or accepted by
// DropIf is a sample marked as a drop; the caller's own cancellation and any
// other error free the slot with no sample; a panic (of the call, or of
// DropIf) frees the slot with no sample and goes on. The latency runs from the start reading (the outer stage's, passed in
// next.Start, or one taken when admitted) to the end reading (the inner
// stage's, or one taken here), and the end reading is returned upward. The
// admitted and rejected paths allocate nothing and take no lock.
//
// RunAsync takes a slot the same way but never waits (a full limit returns
// a failed future at once, even with MaxWait), starts the rest of the chain
// on the calling goroutine and holds the slot until the inner future
// completes; the latency runs to that completion. The returned future
// completes after the sample (and any recompute) is recorded. Cancelling it
// cancels the inner future; a cancelled inner future frees the slot with no
// sample. The completion goes through [policy.Forward]: DropIf, then the
// slot's release (with the LimitChanged event last), then the returned
// future's completion, each guarded; a panic in DropIf frees the slot with
// no sample, and the first panic goes on once the future is complete.
//
// With a disabled limit both pass the call through untouched.
func Stage[T any](l *Limiter) policy.Link[T] { return stage[T]{l} }

type stage[T any] struct{ l *Limiter }

var _ policy.Link[any] = stage[any]{}

func (s stage[T]) Run(ctx context.Context, next policy.Next[T]) (T, policy.Stamp, error) {
	l := s.l
	if l.disabled {
		return next.Run(ctx)
	}
	// A full limit is refused with two loads and no call.
	if uint32(l.hot.word.Load()) < uint32(l.hot.lim.Load()) || l.waitOn {
		if n, ok := l.admit(ctx); ok {
			return run(ctx, l, next, n, next.Start)
		}
	}
	if !l.waitOn {
		l.rejections.Add(1)
		if l.bus.Active() {
			l.publishRejected(ctx)
		}
		var zero T
		return zero, policy.NoStamp, l.err
	}
	n, err := l.wait(ctx)
	if err != nil {
		var zero T
		return zero, policy.NoStamp, err
	}
	return run(ctx, l, next, n, policy.NoStamp) // the outer reading predates the wait
}

// run runs an admitted call that holds a slot; n is the slot count seen on
// admission and start the reading to measure from, if any.
func run[T any](ctx context.Context, l *Limiter, next policy.Next[T], n uint32, start policy.Stamp) (T, policy.Stamp, error) {
	if !start.OK() {
		start = policy.Stamp(l.clock.Nanotime())
	}
	p := Permit{start: start.At(), slot: n, kind: permitHeld}
	defer l.releaseOnPanic(&p)
	v, end, err := next.WithStart(start.At()).Run(ctx)
	o := OutcomeSuccess
	if err != nil {
		o = l.classifyErr(ctx, err)
	}
	if !end.OK() {
		end = policy.Stamp(l.clock.Nanotime())
	}
	held := p
	p.kind = permitNone // released below, not by the deferred call
	l.release(ctx, held, o, end.At())
	return v, end, err
}

func (s stage[T]) RunAsync(ctx context.Context, next policy.AsyncNext[T]) *future.Future[T] {
	l := s.l
	if l.disabled {
		return next.Call(ctx)
	}
	n, ok := l.admit(ctx)
	if !ok {
		l.rejected(ctx)
		return future.Failed[T](l.err)
	}
	p := Permit{start: l.clock.Nanotime(), slot: n, kind: permitHeld}
	inner := callAsync(ctx, l, p, next)
	return policy.Forward(inner,
		func(c policy.Outcome[T]) policy.Outcome[T] { // the user's DropIf
			o := OutcomeIgnore
			if c.Err == nil {
				o = OutcomeSuccess
			} else if !errors.Is(c.Err, future.ErrCancelled) {
				o = l.classifyErr(ctx, c.Err)
			}
			c.Verdict = int(o)
			return c
		},
		func(c policy.Outcome[T]) policy.Outcome[T] { // free the slot, record the sample (listeners last)
			o := Outcome(c.Verdict)
			if c.Panicked {
				o = OutcomeIgnore // DropIf panicked: free the slot, no sample
			}
			var end int64
			if o != OutcomeIgnore {
				end = l.clock.Nanotime()
			}
			l.release(ctx, p, o, end)
			return c
		})
}

// releaseOnPanic frees the slot of *p if it still holds one: deferred by a
// stage, it runs with a held permit only when the call panicked, and the
// panic goes on.
func (l *Limiter) releaseOnPanic(p *Permit) {
	if p.kind == permitHeld {
		l.release(context.Background(), *p, OutcomeIgnore, 0)
	}
}

// callAsync starts the rest of an asynchronous chain, freeing p's slot if
// that panics.
func callAsync[T any](ctx context.Context, l *Limiter, p Permit, next policy.AsyncNext[T]) *future.Future[T] {
	defer l.releaseOnPanic(&p)
	f := next.Call(ctx)
	p.kind = permitNone // the slot is now the future's to free
	return f
}
