package policy

import (
	"context"
	"time"

	"github.com/resilience4cata/r4c/events"
)

// Clock is where every policy reads time, waits, and makes deadline
// contexts. Implementations are safe for concurrent use.
//
// [System] is the real clock. clocktest.ManualClock moves only when a test
// tells it to, which makes latencies, windows, waits and timeouts exact.
type Clock interface {
	// Now returns the current wall-clock time.
	Now() time.Time
	// Nanotime returns a monotonic reading in nanoseconds. Only the
	// difference between two readings means anything: a reading can be
	// negative (inside a testing/synctest bubble it is).
	Nanotime() int64
	// NewTimer returns a timer that sends on its channel once d has passed.
	NewTimer(d time.Duration) Timer
	// WithDeadline returns a copy of parent that is cancelled at deadline d
	// by this clock, with ctx.Err() and context.Cause equal to
	// context.DeadlineExceeded, and whose Deadline method reports d.
	// Calling cancel releases the timer; call it as soon as the work ends.
	WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc)
}

// Timer is a one-shot timer made by a [Clock].
type Timer interface {
	// C returns the channel on which the timer's time is sent.
	C() <-chan time.Time
	// Stop prevents the timer from firing. It reports whether the call
	// stopped the timer, false if it had already fired or been stopped.
	Stop() bool
}

// System is the real clock: time.Now, the runtime's monotonic clock,
// time.Timer and context.WithDeadline. Inside a testing/synctest bubble it
// follows the bubble's fake time, like the rest of the time package.
var System Clock = systemClock{}

// epoch is the fixed instant monotonic readings are measured from.
// time.Since(epoch) uses the monotonic clock and costs one runtime
// nanotime call, about half of time.Now.
var epoch = time.Now()

type systemClock struct{}

func (systemClock) Now() time.Time                 { return time.Now() }
func (systemClock) Nanotime() int64                { return int64(time.Since(epoch)) }
func (systemClock) NewTimer(d time.Duration) Timer { return sysTimer{time.NewTimer(d)} }
func (systemClock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return context.WithDeadline(parent, d)
}

type sysTimer struct{ t *time.Timer }

func (t sysTimer) C() <-chan time.Time { return t.t.C }
func (t sysTimer) Stop() bool          { return t.t.Stop() }

// Sleep waits on clk until d has passed or ctx is done, whichever comes
// first. It returns nil after the full wait, else ctx's error (unchanged,
// so the caller can tell its own cancellation apart). A d <= 0 returns at
// once, with ctx's error if ctx is already done. Sleep allocates a timer.
func Sleep(ctx context.Context, clk Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := clk.NewTimer(d)
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}

// Env is what a policy core receives from its registry: the clock, the
// event bus and the id of its instance. A zero Env uses the System clock,
// publishes nowhere and has an empty id.
type Env struct {
	Clock    Clock
	Events   *events.Bus
	Instance string
}

// ClockOrSystem returns e.Clock, or System when it is nil.
func (e Env) ClockOrSystem() Clock {
	if e.Clock == nil {
		return System
	}
	return e.Clock
}
