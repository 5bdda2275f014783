package policy

import "context"

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

// Stamp is a monotonic clock reading ([Clock.Nanotime]) that may be absent.
// Readings can be negative, so presence is a flag and never "non-zero".
type Stamp struct {
	At int64
	OK bool
}

// Next is the rest of a chain: the stages inside the current one, then the
// function. It is a small value passed down the stack; calling it does not
// allocate. A stage may call it from several goroutines at once (a hedge
// does): it holds no state of its own. The zero Next is not usable: make
// one with [NewNext].
type Next[T any] struct {
	links []Link[T]
	fn    func(context.Context) (T, error)
	fn0   func() (T, error)
	// Start is the reading an outer stage took on entry, shared with the
	// stages inside so that they need not read the clock again. A stage
	// that waits (or starts a new attempt) clears it for the stages inside.
	Start Stamp
}

// NewNext returns the chain made of links, then fn (or fn0 if fn is nil).
// Pipelines call it once per call; links is shared and never modified.
func NewNext[T any](links []Link[T], fn func(context.Context) (T, error), fn0 func() (T, error)) Next[T] {
	return Next[T]{links: links, fn: fn, fn0: fn0}
}

// Call runs the rest of the chain. It can be called again, for example by a
// retry, and each call starts the rest afresh.
func (n Next[T]) Call(ctx context.Context) (T, error) {
	v, err, _ := n.Run(ctx)
	return v, err
}

// Run runs the rest of the chain like Call and also returns the clock
// reading an inner stage took when the call ended, if any (the function
// itself takes none).
func (n Next[T]) Run(ctx context.Context) (T, error, Stamp) {
	if len(n.links) > 0 {
		l := n.links[0]
		n.links = n.links[1:]
		return l.Run(ctx, n)
	}
	if n.fn != nil {
		v, err := n.fn(ctx)
		return v, err, Stamp{}
	}
	v, err := n.fn0()
	return v, err, Stamp{}
}

// Fresh returns n without the shared start reading: the stages inside will
// read the clock themselves. A stage calls it before a new attempt or after
// a wait.
func (n Next[T]) Fresh() Next[T] {
	n.Start = Stamp{}
	return n
}

// WithStart returns n carrying the reading at, for the stages inside.
func (n Next[T]) WithStart(at int64) Next[T] {
	n.Start = Stamp{At: at, OK: true}
	return n
}
