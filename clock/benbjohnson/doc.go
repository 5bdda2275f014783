// Package benbjohnson adapts github.com/benbjohnson/clock to r4c's clock
// seam, so that a service which injects a clock.Clock (and mocks it in its
// tests with clock.NewMock and mock.Add) drives r4c's policies with the same
// clock:
//
//	mock := clock.NewMock()
//	reg, err := r4c.NewRegistry(r4c.WithClock(benbjohnson.New(mock)))
//
// Then latencies and adaptive-limit windows, retry waits, circuit-breaker
// open waits, rate-limiter refills and waits, bulkhead and adaptive-limit
// waits, hedge delays and timeouts all follow mock.Add and mock.Set. In
// production pass clock.New() (or leave r4c on its own clock, which reads
// the monotonic clock more cheaply).
//
// The package lives in a module of its own, so that r4c's core does not
// depend on benbjohnson/clock.
//
// # What the mock cannot do, and what the adapter does instead
//
// r4c measures time with a monotonic reading ([policy.Clock.Nanotime]). A
// clock.Mock has none: only a wall time that Add moves forward and Set
// moves anywhere. The adapter counts Nanotime from the mock's time when
// [New] was called, so it moves exactly as Add and Set move the mock. On
// the real clock the same subtraction uses Go's monotonic reading.
//
// Setting the mock back (mock.Set to an earlier time) moves Nanotime back
// too, which no monotonic clock does. r4c never takes such a reading as a
// negative duration:
//
//   - Adaptive limit: a call that spans the step back has a negative
//     latency, recorded as 0; the current window ends that much later
//     (it ends when the clock passes its end again).
//   - Circuit breaker: such a call is not slow (its latency is not above
//     SlowCallDuration); an open breaker stays open until the clock has
//     passed its OpenFor again; a time-based window does not move back:
//     calls that end after the step count in the bucket of their earlier
//     reading, or not at all if that is older than the window.
//   - Rate limiter: permits come at fixed instants, so none comes free
//     until the clock is back where it was; the time set back is lost, not
//     given twice.
//   - Retry waits, hedge delays, bulkhead and adaptive-limit waits (MaxWait),
//     rate-limiter waits and timeouts: their timers and deadlines are
//     instants of the mock, armed before the step back, so they fire once
//     the mock reaches those instants again: they last longer by the step.
//
// Timers and deadlines: NewTimer is the mock's Timer. The mock's own
// WithDeadline is not used (in v1.3.5 its context has a data race on its
// error, and context.Cause of it is not DeadlineExceeded); the adapter's
// deadline context is armed with the mock's AfterFunc and keeps no
// goroutine: cancelling it, its deadline or its parent's end releases
// everything.
//
// Two habits of the mock matter in tests. Add sleeps a millisecond of real
// time after each timer it fires, to let the goroutines it woke run; and
// nothing tells a test that a goroutine has armed a timer, so a test must
// know a wait has begun before it calls Add (r4c's clocktest.ManualClock has
// BlockUntil for that; with the mock, synchronise on your own signal). A
// timer armed after the Add that would have passed it waits for the next
// Add.
package benbjohnson
