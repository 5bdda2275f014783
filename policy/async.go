package policy

import (
	"context"

	"github.com/resilience4cata/r4c/future"
)

// AsyncNext is the rest of a chain for an asynchronous call: the stages
// inside the current one, then a function that starts the work and returns
// its future. A stage that holds something for the call (a slot, a permit)
// holds it until the future it gets from Call completes. Like [Next], it is
// a small value and may be called again. The zero AsyncNext is not usable:
// make one with [NewAsyncNext].
type AsyncNext[T any] struct {
	node *node[T]
	fn   func(context.Context) *future.Future[T]
}

// NewAsyncNext returns the asynchronous chain made of links, then fn. Like
// [NewNext] it builds the chain on every call; pipelines use [Chain.AsyncNext].
func NewAsyncNext[T any](links []Link[T], fn func(context.Context) *future.Future[T]) AsyncNext[T] {
	return NewChain(links...).AsyncNext(fn)
}

// Call starts the rest of the chain and returns its future. It never returns
// nil: a nil future from the function becomes a failed one.
func (n AsyncNext[T]) Call(ctx context.Context) *future.Future[T] {
	if nd := n.node; nd != nil {
		n.node = nd.next
		f := nd.link.RunAsync(ctx, n)
		if f == nil {
			return future.Failed[T](ErrNilFuture)
		}
		return f
	}
	f := n.fn(ctx)
	if f == nil {
		return future.Failed[T](ErrNilFuture)
	}
	return f
}

// Sync returns the rest of the chain as a synchronous [Next] whose function
// starts the work and waits for its future: it serves stages without an
// asynchronous form. A nil future fails with [ErrNilFuture]. If ctx is done
// before the future completes, the function cancels the future (so the
// cancellation reaches the work's [future.Promise.OnCancel] functions) and
// returns ctx.Err(), unless the future completed first.
func (n AsyncNext[T]) Sync() Next[T] {
	fn := n.fn
	return Next[T]{node: n.node, Start: NoStamp, fn: func(ctx context.Context) (T, error) {
		f := fn(ctx)
		if f == nil {
			var zero T
			return zero, ErrNilFuture
		}
		select {
		case <-f.Done():
		case <-ctx.Done():
			if f.Cancel() {
				var zero T
				return zero, ctx.Err()
			}
			<-f.Done() // completed concurrently: wait for its OnComplete functions
		}
		return f.Get(ctx)
	}}
}

// ErrNilFuture is the error of an asynchronous call whose function returned
// a nil future.
var ErrNilFuture = errorString("r4c: the function returned a nil future")

type errorString string

func (e errorString) Error() string { return string(e) }

// Link is a stage of a chain: the built-in policies implement it. Beyond
// [Policy], a Link passes clock readings between stages (so a chain of
// timed stages reads the clock once on entry and once on exit) and has an
// asynchronous form. A custom [Policy] becomes a Link through [Wrap].
type Link[T any] interface {
	// Run runs the call synchronously and returns, with its outcome, the
	// clock reading taken when it ended if this stage or one inside took one.
	Run(ctx context.Context, next Next[T]) (T, Stamp, error)
	// RunAsync starts the call and returns its future at once (failed at
	// once if the stage rejects it), holding what the stage holds until the
	// inner future completes.
	RunAsync(ctx context.Context, next AsyncNext[T]) *future.Future[T]
}

// Wrap turns a Policy into a Link. The stages inside a wrapped policy read
// the clock themselves, and it returns no end reading. In an asynchronous
// call a wrapped policy runs on a goroutine of its own (a Policy only knows
// synchronous calls), and the stages inside it run synchronously there,
// waiting for the work's future (see [AsyncNext.Sync]). Cancelling the
// call's future cancels that goroutine's ctx, which cancels the work's
// future in turn; the goroutine ends when the policy returns.
func Wrap[T any](p Policy[T]) Link[T] { return wrapped[T]{p} }

type wrapped[T any] struct{ p Policy[T] }

func (w wrapped[T]) Run(ctx context.Context, next Next[T]) (T, Stamp, error) {
	v, err := w.p.Execute(ctx, next.Fresh())
	return v, NoStamp, err
}

func (w wrapped[T]) RunAsync(ctx context.Context, next AsyncNext[T]) *future.Future[T] {
	ctx, cancel := context.WithCancel(ctx)
	pr := future.NewPromise[T]()
	pr.OnCancel(cancel)
	go func() {
		defer cancel()
		v, err := w.p.Execute(ctx, next.Sync())
		if err != nil {
			pr.Fail(err)
			return
		}
		pr.Complete(v)
	}()
	return pr.Future()
}
