// Package breaker is a circuit breaker: it stops calling a dependency that
// fails or slows down too often, refusing calls at once for a while, then
// tries a few calls to see whether it has recovered.
//
// A [Breaker] is built from a [Config] by [New] and sits in a pipeline
// through [Stage]: fallback → retry → circuit breaker → hedge → rate limiter
// → adaptive limit → timeout → bulkhead → the call. Every attempt of a retry
// outside goes through it; the limits inside see only the calls it admits.
//
// # States
//
// Closed, it lets every call through and keeps the outcomes of the recent
// calls in a sliding window, count-based (the last WindowSize calls) or
// time-based (the calls of the last WindowDuration). Once the window holds
// MinimumCalls calls, a failure rate at or above FailureRateThreshold, or a
// rate of calls slower than SlowCallDuration at or above
// SlowCallRateThreshold, opens it (rates and thresholds are fractions in
// [0, 1]: 0.5 is half the calls). Open, it refuses every call with an
// [*OpenError] for OpenFor, then the first call to arrive moves it to
// half-open, where HalfOpenCalls trial calls go through and the others are
// refused; when every trial has ended, their rates close it or open it
// again. Disabled and forced-open are manual states: the first admits
// everything and records nothing, the second refuses everything.
//
// The breaker starts no goroutine and arms no timer: states advance when
// calls arrive, on the registry's clock (policy.Env.Clock), so a test on a
// ManualClock drives it exactly.
//
// # What counts
//
// A call that returns is a success. A failure is any error, or only the
// errors of RecordOn/RecordIf when set (others count as successes). The
// errors of IgnoreOn/IgnoreIf, and the caller's own cancellation, count as
// nothing (a half-open trial that ends so gives its permit back).
// Rejections from the stages inside are ordinary errors here: a full
// adaptive limit (adaptivelimit.ErrLimitExceeded) is a failure unless
// listed in IgnoreOn. A panic is a failure, and goes on.
//
// # Events and handle
//
// Every state change publishes an events.BreakerStateChanged, and every
// refusal an events.CallRejected with Policy "breaker"; admitted calls
// publish nothing. [Breaker.Handle] returns a [Handle] with the state, a
// [Snapshot] of the figures, and manual transitions.
//
// # Cost
//
// An admitted call allocates nothing; with a count-based window it costs
// a few atomic operations and no lock, and it reads the clock only when no
// other stage shares its readings. A refusal allocates nothing.
package breaker
