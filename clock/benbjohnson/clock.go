package benbjohnson

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/resilience4cata/r4c/policy"
)

// New returns a [policy.Clock] that reads, waits and makes deadline
// contexts on c, so that r4c.WithClock(benbjohnson.New(mock)) makes every
// policy of a registry follow the service's clock.Mock. A nil c is the real
// clock, clock.New().
//
// Nanotime is Now minus the instant c read when New was called, so the
// first reading is about 0. On the real clock that difference comes from
// the monotonic clock; a clock.Mock has none, so it is the mock's wall time
// and moves only with Add and Set (see the package documentation for a
// mock set backwards).
//
// NewTimer is c.Timer. WithDeadline makes a context of this package
// cancelled by a timer of c (see [Clock.WithDeadline]); it does not use the
// mock's own WithDeadline.
//
// The result is safe for concurrent use, as c is. It starts no goroutine
// of its own.
func New(c clock.Clock) policy.Clock {
	if c == nil {
		c = clock.New()
	}
	return &Clock{c: c, origin: c.Now()}
}

// Clock is the [policy.Clock] that [New] returns: a github.com/benbjohnson/clock
// Clock seen through r4c's clock seam. Make it with New; the zero value is
// not usable.
type Clock struct {
	c      clock.Clock
	origin time.Time // c's reading when New was called; Nanotime counts from it
}

var _ policy.Clock = (*Clock)(nil)

// Now returns c.Now().
func (k *Clock) Now() time.Time { return k.c.Now() }

// Nanotime returns c.Now() minus the instant c read when the adapter was
// made, in nanoseconds. It is negative once a mock is set back before that
// instant; r4c only ever subtracts two readings.
func (k *Clock) Nanotime() int64 { return int64(k.c.Now().Sub(k.origin)) }

// NewTimer returns c.Timer(d). On a mock it fires during the Add or Set
// that reaches its instant (at once if d <= 0).
func (k *Clock) NewTimer(d time.Duration) policy.Timer { return timer{k.c.Timer(d)} }

// WithDeadline returns a copy of parent that is done when c reaches d (or
// when parent is done, whichever comes first), as policy.Clock requires:
// then Err and context.Cause return context.DeadlineExceeded, for the copy
// and for the contexts derived from it, and Deadline reports d (or parent's
// deadline if that is earlier).
//
// On a mock the copy's timer is armed with c.AfterFunc, which the mock runs
// on a goroutine of its own during the Add that reaches d, so Done is
// closed just after that Add; Err (and Done, when called) look at c.Now()
// as well, so after the Add returns they already report the deadline. If d
// is not after c.Now(), the copy is done from the start.
//
// cancel makes the copy done with context.Canceled and stops its timer and
// its watch on parent; call it as soon as the work ends. Nothing of the
// copy outlives cancel, its deadline or parent's end: it keeps no goroutine
// waiting.
func (k *Clock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return withDeadline(k.c, parent, d)
}

type timer struct{ t *clock.Timer }

func (t timer) C() <-chan time.Time { return t.t.C }
func (t timer) Stop() bool          { return t.t.Stop() }
