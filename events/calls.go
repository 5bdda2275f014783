package events

import (
	"context"
	"time"
)

// CallOutcome says how a call through a pipeline ended, as a pipeline
// reports it to a [CallObserver].
type CallOutcome uint8

// The outcomes of a call.
const (
	// OutcomeSuccess: the call returned no error (a fallback's value counts).
	OutcomeSuccess CallOutcome = iota
	// OutcomeFailure: the call returned an error that is none of the others.
	OutcomeFailure
	// OutcomeTimeout: a timeout of the pipeline fired (the error matches
	// timeout.ErrCallTimeout).
	OutcomeTimeout
	// OutcomeRejected: a policy refused the call without running it (the
	// error matches policy.ErrRejected); [Call.RejectedBy] names the kind.
	OutcomeRejected
	// OutcomeCancelled: the caller's own ctx ended the call; never a failure.
	OutcomeCancelled
)

var outcomeNames = [...]string{
	OutcomeSuccess:   "success",
	OutcomeFailure:   "failure",
	OutcomeTimeout:   "timeout",
	OutcomeRejected:  "rejected",
	OutcomeCancelled: "cancelled",
}

// CallOutcomes returns every outcome, in the order of their values.
func CallOutcomes() [5]CallOutcome {
	return [...]CallOutcome{OutcomeSuccess, OutcomeFailure, OutcomeTimeout, OutcomeRejected, OutcomeCancelled}
}

// String returns the outcome as metrics label it: "success", "failure",
// "timeout", "rejected" or "cancelled"; "unknown" for another value.
func (o CallOutcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// Call describes one call that ended, as a pipeline reports it to a
// [CallObserver]. It is a plain value: an observer may keep it.
type Call struct {
	// Pipeline is the name of the pipeline the call went through.
	Pipeline string
	// Outcome is how the call ended.
	Outcome CallOutcome
	// RejectedBy is the kind of the policy that rejected the call
	// ("adaptivelimit", "bulkhead", "ratelimit", "breaker", or the Kind of
	// a policy.RejectedError; "other" for a rejection of another type) when
	// Outcome is OutcomeRejected, and "" otherwise.
	RejectedBy string
	// Latency is the time from the call's entry into the pipeline to its
	// end, on the registry's clock: retries, their waits and hedged
	// attempts included.
	Latency time.Duration
}

// CallObserver is told of every call that ends in the pipelines built
// against a registry; the metrics modules implement it to count outcomes
// and record latencies. Add one with [Bus.ObserveCalls].
//
// ObserveCall runs on the goroutine that made the call (for
// Pipeline.ExecuteFuture, on the one that completed its future), after the
// policies have recorded the outcome and before the caller gets it. It
// must be quick, must not block and should not allocate: it is on every
// call's path. ctx is the caller's ctx (context.Background() for
// Pipeline.Execute), for exemplars and trace ids. A call whose function
// panics is not observed.
type CallObserver interface {
	ObserveCall(ctx context.Context, c Call)
}

// ObserveCalls adds o as an observer of every call made through the
// pipelines built against the registry that owns b (pipelines built before
// and after), and returns a function that removes it. Calling stop more
// than once is harmless. With no observer, a call pays one atomic load for
// the check; pipelines read the clock only for a call that is observed.
// ObserveCalls needs a non-nil Bus; it allocates (the list of observers is
// copied on write), observing does not.
//
// Observers do not make the bus [Bus.Active]: they receive no events.
func (b *Bus) ObserveCalls(o CallObserver) (stop func()) {
	h := &observer{o}
	b.mu.Lock()
	old := b.obs.Load()
	var next []*observer
	if old != nil {
		next = append(next, *old...)
	}
	next = append(next, h)
	b.obs.Store(&next)
	b.mu.Unlock()
	done := false
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if done {
			return
		}
		done = true
		cur := b.obs.Load()
		if cur == nil {
			return
		}
		rest := make([]*observer, 0, len(*cur))
		for _, x := range *cur {
			if x != h {
				rest = append(rest, x)
			}
		}
		if len(rest) == 0 {
			b.obs.Store(nil)
			return
		}
		b.obs.Store(&rest)
	}
}

type observer struct{ o CallObserver }

// CallsObserved reports whether a [CallObserver] is present. It costs one
// atomic load and allocates nothing; a nil Bus has none.
func (b *Bus) CallsObserved() bool {
	return b != nil && b.obs.Load() != nil
}

// ObserveCall hands c to every observer present, in the order they were
// added, on the calling goroutine. Pipelines call it; it does nothing on a
// nil Bus or one without observers, and allocates nothing.
func (b *Bus) ObserveCall(ctx context.Context, c Call) {
	if b == nil {
		return
	}
	obs := b.obs.Load()
	if obs == nil {
		return
	}
	for _, h := range *obs {
		h.o.ObserveCall(ctx, c)
	}
}
