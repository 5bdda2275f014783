package pipeline

import (
	"context"
	"errors"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// ErrNilFunc is returned (or fails the future) when a Pipeline is asked to
// execute a nil function.
var ErrNilFunc = errors.New("r4c: pipeline: nil function")

// Pipeline runs calls through a fixed chain of policies. It is safe for
// concurrent use; build it once with a [Builder] and keep it.
type Pipeline[T any] struct {
	name  string
	chain policy.Chain[T] // linked once, at Build
	bus   *events.Bus     // the registry's: its call observers are checked on every call
	clock policy.Clock    // the registry's: read for observed calls only
	kinds []string
	// detaches is set when a stage may call the function after Execute
	// has returned, or call it on a goroutine of its own: an enabled hedge,
	// or an enabled timeout in its default (detached) mode. See Bind.
	detaches bool
	// repeats is set when ExecuteFuture may call the function again after
	// it has returned: an enabled retry or hedge. See BindFuture.
	repeats bool
}

// Name returns the pipeline's name, the default instance id of its policies.
func (p *Pipeline[T]) Name() string { return p.name }

// Policies returns the kinds of the pipeline's policies, outermost first,
// such as ["retry", "adaptivelimit", "timeout"]; custom policies are "custom".
func (p *Pipeline[T]) Policies() []string { return append([]string(nil), p.kinds...) }

// Detaches reports whether a stage may call the function on a goroutine
// of its own, and so after Execute has returned: an enabled hedge (its
// losing attempts), or an enabled timeout in its default, detached mode
// (a call it abandoned at the deadline). A function that writes into
// memory its caller reads afterwards must then write into memory of its
// own per call (r4cgrpc gives each attempt its own reply message).
func (p *Pipeline[T]) Detaches() bool { return p.detaches }

// Execute runs fn through the pipeline on the calling goroutine, with
// context.Background() for the policies. It returns fn's outcome or the
// error of the policy that stopped it. It allocates nothing on the success
// and rejection paths when fn captures no variables (see the package doc).
func (p *Pipeline[T]) Execute(fn func() (T, error)) (T, error) {
	if fn == nil {
		var zero T
		return zero, ErrNilFunc
	}
	if p.bus.CallsObserved() {
		return p.runObserved(context.Background(), nil, fn)
	}
	v, _, err := p.chain.Next(nil, fn).Run(context.Background())
	return v, err
}

// ExecuteContext runs fn through the pipeline on the calling goroutine. fn
// receives the ctx the inner policies give it (with a deadline when there is
// a timeout). The caller's own cancellation of ctx frees what the call holds
// and is never counted as a failure.
func (p *Pipeline[T]) ExecuteContext(ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	if fn == nil {
		var zero T
		return zero, ErrNilFunc
	}
	if p.bus.CallsObserved() {
		return p.runObserved(ctx, fn, nil)
	}
	v, _, err := p.chain.Next(fn, nil).Run(ctx)
	return v, err
}

// ExecuteAsync runs fn through the pipeline on a goroutine of its own and
// returns its future at once. Cancelling the future cancels the ctx fn and
// the policies see. If fn panics, the policies free what they hold and the
// panic goes on, in that goroutine: it is not turned into an error.
func (p *Pipeline[T]) ExecuteAsync(ctx context.Context, fn func(context.Context) (T, error)) *future.Future[T] {
	if fn == nil {
		return future.Failed[T](ErrNilFunc)
	}
	ctx, cancel := context.WithCancel(ctx)
	pr := future.NewPromise[T]()
	pr.OnCancel(cancel)
	go func() {
		defer cancel()
		v, err := p.ExecuteContext(ctx, fn)
		if err != nil {
			pr.Fail(err)
			return
		}
		pr.Complete(v)
	}()
	return pr.Future()
}

// ExecuteFuture runs an asynchronous call through the pipeline: fn is called
// on the calling goroutine, before ExecuteFuture returns, and starts the work
// whose future it returns. Each policy holds its slot or permit until that
// future completes, and the adaptive limit measures latency to its
// completion. A rejection returns a failed future at once, without calling
// fn. The returned future completes after every policy has recorded the
// outcome. Cancelling it cancels the ctx given to fn, cancels fn's future
// and frees the slots without a sample.
func (p *Pipeline[T]) ExecuteFuture(ctx context.Context, fn func(context.Context) *future.Future[T]) *future.Future[T] {
	if fn == nil {
		return future.Failed[T](ErrNilFunc)
	}
	ctx, cancel := context.WithCancel(ctx)
	if p.bus.CallsObserved() {
		return p.futureObserved(ctx, fn, cancel)
	}
	f := p.chain.AsyncNext(fn).Call(ctx)
	f.OnComplete(func(T, error) { cancel() })
	return f
}
