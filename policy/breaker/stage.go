package breaker

import (
	"context"
	"errors"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// Stage returns the pipeline stage of b for results of type T. Make it once
// when the pipeline is built; it is safe for concurrent use.
//
// Run admits or refuses the call. A refused call returns the breaker's
// preallocated *[OpenError] at once, without calling the rest of the
// chain, and allocates nothing. An admitted call shares its clock readings
// with the chain: its start is next.Start when an outer stage took one,
// else one reading, passed inward with next.WithStart; its end is the
// reading an inner stage returned, else one reading, and is returned
// upward. So with an adaptive limit inside, the two stages read the clock
// twice in all. The end minus the start is the call's latency, compared
// with SlowCallDuration. A panic, of the call or of RecordIf or IgnoreIf
// judging it, is recorded as a failure (a half-open trial permit is never
// left taken) and goes on. A disabled breaker passes the call through and
// reads nothing.
//
// RunAsync admits the call the same way, returning an already-failed
// future (shared, allocated once per stage) on refusal; it records the
// outcome when the inner future completes, with the latency to that
// completion, before completing the future it returned. A cancelled inner
// future (future.ErrCancelled) is ignored, and cancelling the returned
// future cancels the inner one. The completion goes through
// [policy.Forward]: RecordIf and IgnoreIf (a panic there records a
// failure), then the recording (state changes published last), then the
// returned future's completion; the first panic goes on after.
func Stage[T any](b *Breaker) policy.Link[T] {
	return &stage[T]{
		b:      b,
		open:   future.Failed[T](b.openErr),
		forced: future.Failed[T](b.forcedErr),
		half:   future.Failed[T](b.halfErr),
	}
}

type stage[T any] struct {
	b *Breaker
	// Futures failed with each refusal, shared by every refused
	// asynchronous call: a completed future cannot change.
	open, forced, half *future.Future[T]
}

var _ policy.Link[any] = (*stage[any])(nil)

// Run implements [policy.Link].
func (s *stage[T]) Run(ctx context.Context, next policy.Next[T]) (T, policy.Stamp, error) {
	b := s.b
	e := b.cur.Load()
	switch e.state {
	case StateDisabled:
		return next.Run(ctx)
	case StateForcedOpen:
		b.notPermitted.Add(1)
		b.refused(ctx, b.forcedErr)
		var zero T
		return zero, next.Start, b.forcedErr
	}
	start := next.Start
	if !start.OK() {
		start = policy.Stamp(b.clock.Nanotime())
	}
	p := Permit{e, start.At()}
	if e.state != StateClosed {
		var oerr *OpenError
		if p, oerr = b.admit(e, start.At()); oerr != nil {
			b.refused(ctx, oerr)
			var zero T
			return zero, start, oerr
		}
		if p.e == nil { // disabled meanwhile
			return next.WithStart(start.At()).Run(ctx)
		}
	}
	ended := false
	defer b.failOnPanic(&ended, p) // fn or a predicate panicked: a failure, and the panic goes on
	v, end, err := next.WithStart(start.At()).Run(ctx)
	if !end.OK() {
		end = policy.Stamp(b.clock.Nanotime())
	}
	o := success
	if err != nil {
		o = b.classify(ctx, err) // a panic in RecordIf or IgnoreIf is a failure
	}
	ended = true
	b.finish(p, o, end.At())
	return v, end, err
}

// RunAsync implements [policy.Link].
func (s *stage[T]) RunAsync(ctx context.Context, next policy.AsyncNext[T]) *future.Future[T] {
	b := s.b
	e := b.cur.Load()
	if e.state == StateDisabled {
		return next.Call(ctx)
	}
	p, oerr := b.admit(e, b.clock.Nanotime())
	if oerr != nil {
		b.refused(ctx, oerr)
		switch oerr {
		case b.forcedErr:
			return s.forced
		case b.halfErr:
			return s.half
		}
		return s.open
	}
	if p.e == nil {
		return next.Call(ctx)
	}
	ended := false
	defer b.failOnPanic(&ended, p)
	inner := next.Call(ctx)
	ended = true
	return policy.Forward(inner,
		func(c policy.Outcome[T]) policy.Outcome[T] { // the user's RecordIf and IgnoreIf
			o := ignored
			if !errors.Is(c.Err, future.ErrCancelled) {
				o = b.classify(ctx, c.Err)
			}
			c.Verdict = int(o)
			return c
		},
		func(c policy.Outcome[T]) policy.Outcome[T] { // record the outcome, give a trial permit back
			o := outcome(c.Verdict)
			if c.Panicked {
				o = failure
			}
			b.finish(p, o, b.clock.Nanotime())
			return c
		})
}
