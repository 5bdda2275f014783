// Package clocktest provides [ManualClock], a [policy.Clock] that moves only
// when a test tells it to.
//
// On a ManualClock a call's latency is exactly what the test advanced the
// clock by, windows end when the clock passes them, and timers, retry waits,
// breaker waits, rate-limit refills and timeouts fire in deadline order
// during [ManualClock.Advance]. [ManualClock.BlockUntil] lets a test wait
// until a goroutine has armed a timer instead of sleeping and hoping:
//
//	clk := clocktest.NewManualClock()
//	go func() { errc <- policy.Sleep(ctx, clk, time.Second) }()
//	if err := clk.BlockUntil(ctx, 1); err != nil { // the goroutine is waiting
//		t.Fatal(err)
//	}
//	clk.Advance(time.Second) // Sleep returns nil, after exactly one second
//
// Deadline contexts made by [ManualClock.WithDeadline] end during the
// Advance that reaches them, with context.DeadlineExceeded as their error
// and cause, and so do the contexts derived from them.
//
// Tests that would rather use real waits on virtual time can run the
// [policy.System] clock inside a testing/synctest bubble instead: the
// library works there unchanged.
//
// We wrote our own rather than use github.com/benbjohnson/clock: its mock
// yields by sleeping a millisecond of real time on every Add, and it has no
// way to wait until a number of timers are armed, which is what makes tests
// of waiting policies exact.
package clocktest
