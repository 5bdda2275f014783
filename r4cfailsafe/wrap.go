package r4cfailsafe

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/failsafe-go/failsafe-go"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

// Wrapped is a failsafe-go executor as an r4c policy, for
// pipeline.Builder.Use (innermost, between the bulkhead and the call):
//
//	p, err := pipeline.NewBuilder[string](reg, "search").
//		AdaptiveLimit(nil).
//		Use(r4cfailsafe.Wrap("search-cache", cachePolicy)).
//		Build()
//
// Each call runs the rest of the chain through the executor, with the
// call's ctx: failsafe-go's policies keep their own semantics (a retry
// retries the rest of the chain, a breaker records its outcomes, a timeout
// cancels the ctx the rest of the chain sees). Their outcomes reach r4c as
// the package documentation's table says: a rejection matches
// policy.ErrRejected, a timeout or a full bulkhead counts as a drop to an
// adaptive limit outside, and the caller's cancellation passes through
// untouched.
//
// A panic in the rest of the chain stops the execution: the function's ctx
// is cancelled, so that failsafe-go's retry, hedge and fallback stop and its
// bulkhead, limiter and breaker settle what they hold (the breaker records
// a failure), then the panic goes on, with its original value, from
// Execute. (failsafe-go itself lets a panic through without settling its
// policies.)
//
// A Wrapped is safe for concurrent use. A call allocates what failsafe-go's
// executor allocates, plus a cancellable ctx and a closure.
type Wrapped[T any] struct {
	name string
	exec failsafe.Executor[T]
	bus  *events.Bus
	// rejected holds, per entry of theirRejections, the r4c form of that
	// bare sentinel, made once.
	rejected [len(theirRejections)]*policy.RejectedError
}

var _ policy.Policy[any] = (*Wrapped[any])(nil)

// Wrap returns failsafe-go's policies, composed as failsafe.With composes
// them (the first outermost), as one r4c policy. name is the instance id
// its rejections carry ([*policy.RejectedError] Instance, and
// events.CallRejected).
func Wrap[T any](name string, policies ...failsafe.Policy[T]) *Wrapped[T] {
	return WrapExecutor(name, failsafe.With(policies...))
}

// WrapExecutor returns a failsafe-go executor as one r4c policy, keeping its
// listeners (OnDone, OnSuccess, OnFailure). Each call runs it
// with the call's ctx (Executor.WithContext), so the executor's own context
// is not used. A nil exec is an executor of no policies.
func WrapExecutor[T any](name string, exec failsafe.Executor[T]) *Wrapped[T] {
	if exec == nil {
		exec = failsafe.With[T]()
	}
	w := &Wrapped[T]{name: name, exec: exec}
	for i, r := range theirRejections {
		var err error = r.err
		if r.also != nil {
			err = newError(r.err, r.also)
		}
		w.rejected[i] = &policy.RejectedError{Kind: r.kind, Instance: name, Err: err}
	}
	return w
}

// Events returns a copy of w that publishes an events.CallRejected on bus
// (the registry's reg.Events()) for each call a failsafe-go policy rejects,
// as r4c's own policies do, so that the metrics modules count them.
func (w *Wrapped[T]) Events(bus *events.Bus) *Wrapped[T] {
	c := *w
	c.bus = bus
	return &c
}

// errPanicked is what the function returns to failsafe-go when the rest of
// the chain panicked; the execution is cancelled at the same time, so
// failsafe-go's policies stop, and Execute re-raises the panic.
var errPanicked = errors.New("r4cfailsafe: the call panicked")

// panicked records the first panic of a call's attempts (a failsafe-go
// hedge runs several at once).
type panicked struct {
	once  sync.Once
	value any         // written before seen is set
	seen  atomic.Bool // read by Execute once the executor returned
}

// Execute runs next through the executor with ctx. It returns next's
// outcome, or the executor's error with failsafe-go's rejections and
// timeouts made recognisable to r4c (see the package documentation).
func (w *Wrapped[T]) Execute(ctx context.Context, next policy.Next[T]) (T, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var p panicked
	v, err := w.exec.WithContext(ctx).GetWithExecution(func(exec failsafe.Execution[T]) (v T, err error) {
		defer func() {
			if r := recover(); r != nil {
				p.once.Do(func() { p.value = r; p.seen.Store(true) })
				cancel()
				err = errPanicked
			}
		}()
		return next.Call(exec.Context())
	})
	if p.seen.Load() {
		panic(p.value)
	}
	if err != nil {
		err = w.ours(err)
	}
	return v, err
}

// ours returns err as r4c sees it: a failsafe-go rejection is (or unwraps
// to, when a failsafe-go retry gave up on one) a *policy.RejectedError; a
// failsafe-go timeout or full bulkhead also matches r4c's; an error r4c
// already knows as a rejection, and every other error, are returned as
// they are.
func (w *Wrapped[T]) ours(err error) error {
	if errors.Is(err, policy.ErrRejected) {
		return err
	}
	for i, r := range theirRejections {
		if err == r.err || errors.Is(err, r.err) {
			rej := w.rejected[i]
			var out error = rej
			if err != r.err {
				out = newError(err, rej)
			}
			if w.bus.Active() {
				w.bus.Publish(events.CallRejected{Policy: r.kind, Instance: w.name, Err: out})
			}
			return out
		}
	}
	return asOurs(err)
}
