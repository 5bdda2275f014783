package pipeline

import (
	"context"
	"errors"
	"time"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// The observed paths. A pipeline checks its registry's bus for a call
// observer (one atomic load) on every call; only an observed call reads the
// clock on entry, and it hands that reading to the stages as the outer
// start (next.Start), so a pipeline with a timed stage reads the clock no
// more often than it would unobserved.

// runObserved runs a synchronous call and reports it to the observers.
//
//go:noinline
func (p *Pipeline[T]) runObserved(ctx context.Context, fn func(context.Context) (T, error), fn0 func() (T, error)) (T, error) {
	start := p.clock.Nanotime()
	v, end, err := p.chain.Next(fn, fn0).WithStart(start).Run(ctx)
	at := p.clock.Nanotime()
	if end.OK() {
		at = end.At()
	}
	p.observe(ctx, err, time.Duration(at-start))
	return v, err
}

// futureObserved runs an asynchronous call and reports it to the observers
// when its future completes.
func (p *Pipeline[T]) futureObserved(ctx context.Context, fn func(context.Context) *future.Future[T], cancel context.CancelFunc) *future.Future[T] {
	start := p.clock.Nanotime()
	f := p.chain.AsyncNext(fn).Call(ctx)
	f.OnComplete(func(_ T, err error) {
		// Observed before cancel, which would make every ctx error look
		// like the caller's.
		p.observe(ctx, err, time.Duration(p.clock.Nanotime()-start))
		cancel()
	})
	return f
}

func (p *Pipeline[T]) observe(ctx context.Context, err error, latency time.Duration) {
	if latency < 0 { // the clock was set back
		latency = 0
	}
	o, by := classify(ctx, err)
	p.bus.ObserveCall(ctx, events.Call{Pipeline: p.name, Outcome: o, RejectedBy: by, Latency: latency})
}

// classify returns the outcome of a call that ended with err, and for a
// rejection the kind of the policy that rejected it. It allocates nothing.
func classify(ctx context.Context, err error) (events.CallOutcome, string) {
	switch {
	case err == nil:
		return events.OutcomeSuccess, ""
	case policy.CallerCancelled(ctx, err) || errors.Is(err, future.ErrCancelled):
		return events.OutcomeCancelled, ""
	case errors.Is(err, policy.ErrRejected):
		return events.OutcomeRejected, rejectedBy(err)
	case errors.Is(err, policy.ErrCallTimeout):
		return events.OutcomeTimeout, ""
	}
	return events.OutcomeFailure, ""
}

// rejectedBy names the kind of policy behind a rejection.
func rejectedBy(err error) string {
	switch {
	case errors.Is(err, adaptivelimit.ErrLimitExceeded):
		return "adaptivelimit"
	case errors.Is(err, bulkhead.ErrFull):
		return "bulkhead"
	case errors.Is(err, ratelimit.ErrRateLimited):
		return "ratelimit"
	case errors.Is(err, breaker.ErrOpen):
		return "breaker"
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if r, ok := e.(*policy.RejectedError); ok && r.Kind != "" {
			return r.Kind
		}
	}
	return "other"
}
