package policy

import (
	"context"
	"math"

	"github.com/resilience4cata/r4c/future"
)

// Policy decorates one call. Execute decides whether, when and how often to
// call next; it must return next's outcome or an error of its own.
// Implementations are safe for concurrent use: one Policy serves every call
// of a pipeline.
//
// Execute must not keep next after it returns, and may call next.Call more
// than once (a retry does).
type Policy[T any] interface {
	Execute(ctx context.Context, next Next[T]) (T, error)
}

// Func adapts a function to a [Policy].
type Func[T any] func(ctx context.Context, next Next[T]) (T, error)

// Execute calls f(ctx, next).
func (f Func[T]) Execute(ctx context.Context, next Next[T]) (T, error) { return f(ctx, next) }

// Stamp is a monotonic clock reading ([Clock.Nanotime]), or [NoStamp]
// when there is none. Readings can be negative (inside a testing/synctest
// bubble they are) and zero is a reading like any other, so absence is the
// one value no clock returns, math.MinInt64. Stamp is one word so that
// passing it between stages costs nothing.
type Stamp int64

// NoStamp is the absent reading.
const NoStamp Stamp = math.MinInt64

// OK reports whether s is a reading.
func (s Stamp) OK() bool { return s != NoStamp }

// At returns the reading in nanoseconds. Call it only when OK is true.
func (s Stamp) At() int64 { return int64(s) }

// node is one link of a chain, and the rest after it. Chains are built once.
type node[T any] struct {
	link Link[T]
	next *node[T]
}

// Chain is a fixed sequence of links, built once (a pipeline builds its
// chain at Build) and shared by every call. The zero Chain has no links.
type Chain[T any] struct{ head *node[T] }

// NewChain links links, outermost first. It allocates one node per link;
// make it once and call [Chain.Next] per call.
func NewChain[T any](links ...Link[T]) Chain[T] {
	var head *node[T]
	for i := len(links) - 1; i >= 0; i-- {
		head = &node[T]{link: links[i], next: head}
	}
	return Chain[T]{head: head}
}

// Next returns the chain, then fn (or fn0 if fn is nil), ready to run. It
// does not allocate.
func (c Chain[T]) Next(fn func(context.Context) (T, error), fn0 func() (T, error)) Next[T] {
	return Next[T]{node: c.head, fn: fn, fn0: fn0, Start: NoStamp}
}

// AsyncNext returns the chain, then fn, for an asynchronous call.
func (c Chain[T]) AsyncNext(fn func(context.Context) *future.Future[T]) AsyncNext[T] {
	return AsyncNext[T]{node: c.head, fn: fn}
}

// Next is the rest of a chain: the stages inside the current one, then the
// function. It is a value of four words passed down the stack (small enough
// to travel in registers); calling it does not allocate. A stage may call it
// from several goroutines at once (a hedge does): it holds no state of its
// own. The zero Next is not usable: get one from [Chain.Next] or [NewNext].
type Next[T any] struct {
	node *node[T]
	fn   func(context.Context) (T, error)
	fn0  func() (T, error)
	// Start is the reading an outer stage took on entry, shared with the
	// stages inside so that they need not read the clock again, or NoStamp.
	// A stage that waits (or starts a new attempt) clears it for the stages
	// inside.
	Start Stamp
}

// NewNext returns the chain made of links, then fn (or fn0 if fn is nil).
// It builds the chain on every call (one allocation per link); for repeated
// calls build a [Chain] once. With no links it does not allocate.
func NewNext[T any](links []Link[T], fn func(context.Context) (T, error), fn0 func() (T, error)) Next[T] {
	return NewChain(links...).Next(fn, fn0)
}

// Call runs the rest of the chain. It can be called again, for example by a
// retry, and each call starts the rest afresh.
func (n Next[T]) Call(ctx context.Context) (T, error) {
	v, _, err := n.Run(ctx)
	return v, err
}

// Run runs the rest of the chain like Call and also returns the clock
// reading an inner stage took when the call ended, or NoStamp (the function
// itself takes none).
func (n Next[T]) Run(ctx context.Context) (T, Stamp, error) {
	if nd := n.node; nd != nil {
		n.node = nd.next
		return nd.link.Run(ctx, n)
	}
	if n.fn != nil {
		v, err := n.fn(ctx)
		return v, NoStamp, err
	}
	v, err := n.fn0()
	return v, NoStamp, err
}

// Fresh returns n without the shared start reading: the stages inside will
// read the clock themselves. A stage calls it before a new attempt or after
// a wait.
func (n Next[T]) Fresh() Next[T] {
	n.Start = NoStamp
	return n
}

// WithStart returns n carrying the reading at, for the stages inside.
func (n Next[T]) WithStart(at int64) Next[T] {
	n.Start = Stamp(at)
	return n
}
