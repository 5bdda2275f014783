package policy

import "github.com/resilience4cata/r4c/future"

// Outcome is the outcome of an asynchronous call as the steps of
// [Forward] see it, one after another: each step gets it and returns it,
// changed or not.
type Outcome[T any] struct {
	// V and Err are the inner future's outcome. A step may replace them
	// (a fallback does); the returned future completes with what the last
	// step left.
	V   T
	Err error
	// Verdict carries what a stage's predicates decided to the stage's
	// bookkeeping step after them; its meaning is the stage's own. It
	// starts at 0.
	Verdict int
	// Panicked is set once a step has panicked: the steps after it still
	// run, and a step that counts outcomes records the call as a failure.
	Panicked bool
	// Dropped is set by a step when the returned future was (or is being)
	// completed some other way, such as by a timeout's deadline: V and Err
	// are then not forwarded.
	Dropped bool
}

// Step is one step of finishing an asynchronous call: see [Forward].
type Step[T any] func(o Outcome[T]) Outcome[T]

// maxSteps is how many steps Forward keeps inline, allocation-free; more
// are copied to the heap.
const maxSteps = 3

// Forward is how every stage finishes an asynchronous call. It returns a
// future that completes when inner completes, after steps have run, with
// the outcome the steps leave in the [Outcome] they pass on. Cancelling the
// returned future cancels inner.
//
// The steps run in order on the goroutine that completes inner, each one
// guarded: a panic in one (or a runtime.Goexit) lets every later step run,
// then the returned future completes, and only then does the first panic
// go on, in that goroutine. So a stage puts its steps in this order: the
// user's predicates that decide how the call counts (DropIf, RecordIf ...),
// whose panic makes the call a failure (see [Outcome.Panicked]); then its
// own bookkeeping (free the slot or the permit, record the sample), which
// publishes its events last; then the rest of the user's code. A step that
// panics leaves the outcome as the earlier steps left it: the returned
// future completes with that.
//
// The functions registered on the returned future ([future.Future.OnComplete])
// run after every step, and a panic there, too, goes on only after all of
// them ran. Nothing the stage holds is left held, and the returned future
// always completes, whatever panics. Up to three steps cost no allocation
// beyond the future's own and the steps' closures.
func Forward[T any](inner *future.Future[T], steps ...Step[T]) *future.Future[T] {
	return ForwardTo(future.NewPromise[T](), inner, steps...)
}

// ForwardTo is [Forward] completing pr, a promise the stage made, and
// returns pr's future. The stage may complete pr itself before inner
// completes (a timeout's deadline does); a step then sets
// [Outcome.Dropped] so that the inner outcome is not forwarded.
func ForwardTo[T any](pr *future.Promise[T], inner *future.Future[T], steps ...Step[T]) *future.Future[T] {
	var inline [maxSteps]Step[T]
	var more []Step[T]
	if len(steps) <= maxSteps {
		copy(inline[:], steps)
	} else {
		more = append([]Step[T](nil), steps...)
	}
	n := len(steps)
	pr.OnCancel(func() { inner.Cancel() })
	inner.OnComplete(func(v T, err error) {
		r := finisher[T]{o: Outcome[T]{V: v, Err: err}, inline: inline, more: more, n: n, pr: pr}
		r.runAll()
	})
	return pr.Future()
}

// finisher runs the steps of [Forward], then completes the promise.
type finisher[T any] struct {
	o        Outcome[T]
	inline   [maxSteps]Step[T]
	more     []Step[T] // all the steps, when there are more than maxSteps
	n        int
	pr       *future.Promise[T]
	next     int // the next step; n is the promise's completion
	panicked bool
	value    any // the first panic
}

func (r *finisher[T]) runAll() {
	r.runFrom()
	if r.panicked {
		panic(r.value)
	}
}

func (r *finisher[T]) runFrom() {
	for r.next <= r.n {
		i := r.next
		r.next++
		r.one(i)
	}
}

func (r *finisher[T]) step(i int) Step[T] {
	if r.more != nil {
		return r.more[i]
	}
	return r.inline[i]
}

// one runs step i (the promise's completion when i is n), keeping its
// panic. A runtime.Goexit cannot be stopped: the steps after it run in its
// deferred call, then it goes on (or the first panic does).
func (r *finisher[T]) one(i int) {
	ok := false
	defer func() {
		if ok {
			return
		}
		p := recover()
		r.o.Panicked = true
		if p == nil {
			r.runFrom()
			if r.panicked {
				panic(r.value)
			}
			return
		}
		if !r.panicked {
			r.panicked, r.value = true, p
		}
	}()
	if i < r.n {
		o := r.step(i)(r.o)
		o.Panicked = o.Panicked || r.o.Panicked
		r.o = o
	} else if !r.o.Dropped {
		settle(r.pr, r.o.V, r.o.Err)
	}
	ok = true
}

// settle completes pr with v, or fails it with err if err is not nil.
func settle[T any](pr *future.Promise[T], v T, err error) {
	if err != nil {
		pr.Fail(err)
		return
	}
	pr.Complete(v)
}
