// Package hedge cuts the tail latency of a call by starting another
// attempt when the first is slow, and taking whichever succeeds first.
//
// A [Hedge] starts the first attempt at once. If no attempt has succeeded
// after Config.Delay, it starts another, and so on every Delay up to
// Config.MaxHedged extra attempts. The first success wins: the call returns
// it at once and the ctx of every other attempt is cancelled. A failed
// attempt does not end the call while others still run; when all have
// failed, the last error is returned. An attempt rejected by a policy
// inside the hedge (errors.Is(err, policy.ErrRejected): an adaptive limit,
// a bulkhead) stops the hedge from starting more, so a hedge never pushes
// harder against a dependency that is already shedding load.
//
// In a pipeline the hedge sits inside the retry and the circuit breaker and
// outside the rate limiter, the adaptive limit, the timeout and the
// bulkhead: every attempt takes its own permit and slot and has its own
// timeout, and the breaker and the retry see one outcome per call.
//
// Attempts run on goroutines of their own, so a hedged call allocates (a
// goroutine and a context per attempt, a timer); the hedge starts no
// goroutine outside calls, and a call's goroutines end when its attempts'
// functions return — at once, when those functions honour their ctx.
//
// Time comes from the clock of the policy.Env given to [New]; with
// clocktest.ManualClock the delays are exact, and
// ManualClock.BlockUntil tells a test when a call is waiting for its next
// delay. The first delay counts from before the first attempt starts
// (the synchronous stage arms its timer then; the asynchronous one, once
// the attempt has returned a future that is not done, for what remains),
// so a test that sees the attempt (at its server, say) can advance the
// clock at once.
//
// Events: events.HedgeStarted for each extra attempt. Figures:
// [Handle.Snapshot].
package hedge
