// Package r4cfailsafe makes r4c and failsafe-go (github.com/failsafe-go/failsafe-go,
// v0.9.8) work together, both ways:
//
//   - r4c's adaptive limit, bulkhead, circuit breaker and rate limiter as
//     failsafe-go policies ([AdaptiveLimit], [Bulkhead], [Breaker],
//     [RateLimit], from a registry handle; [NewAdaptiveLimit] and the like
//     build the registry instance first), so that
//     failsafe.With(r4cfailsafe.AdaptiveLimit[R](h), retryPolicy).Get(fn)
//     runs the registry's instance: its slots, its clock, its events and
//     metrics, its handle's snapshot.
//   - any failsafe-go policies, or a whole executor, as one r4c policy for
//     pipeline.Builder.Use ([Wrap], [WrapExecutor]), so that a team moving
//     to r4c keeps a failsafe-go cache, adaptive throttler or retry it
//     likes.
//
// The package lives in a module of its own, so that r4c's core does not
// depend on failsafe-go.
//
// # r4c's policies in a failsafe-go executor
//
// Each attempt runs through the instance's pipeline stage, the same code an
// r4c pipeline runs, with the execution's ctx (exec.Context(): the
// executor's WithContext, or the child ctx of a failsafe-go timeout or
// hedge outside). So classification is r4c's: for the adaptive limit a nil
// error is a sample, an error in DropOn is a drop, the caller's
// cancellation (the execution's ctx is done, the error is its error) frees
// the slot with no sample, and a panic frees the slot and goes on; the
// breaker records by its RecordOn and IgnoreOn, and a panic as a failure.
// failsafe-go's own timeout.ErrExceeded and bulkhead.ErrFull, from
// policies inside, count as r4c's call timeout and full bulkhead, so the
// adaptive limit's default DropOn makes them drops, as a timeout or a full
// bulkhead inside the limit is in an r4c pipeline.
//
// When the r4c policy refuses an attempt, failsafe-go gets a failure
// result (Done, not a success) whose error is an [*Error] matching both
// libraries' sentinels, and a failsafe-go retry outside retries it unless
// told otherwise (as r4c's retry does). A wait that the execution's ctx
// cancels returns failsafe-go's cancellation result, like its own policies.
//
// # failsafe-go's policies in an r4c pipeline
//
// [Wrapped] runs the rest of the chain through the failsafe-go executor with
// the call's ctx. A failsafe-go rejection becomes a [*policy.RejectedError]
// (Kind such as [KindCircuitBreaker], Instance the name given to Wrap)
// that unwraps to failsafe-go's error, and is published as an
// events.CallRejected when [Wrapped.Events] gives a bus. The caller's
// cancellation passes through untouched. A panic cancels the execution so
// that failsafe-go's policies settle, then goes on.
//
// # The errors, both ways
//
// errors.Is(err, X) holds for every X on the row:
//
//	r4c rejection inside failsafe-go         the caller of failsafe-go sees an *Error matching
//	adaptivelimit (*LimitExceededError)       adaptivelimit.ErrLimitExceeded, policy.ErrRejected, adaptivelimiter.ErrExceeded
//	bulkhead (*BulkheadFullError)             bulkhead.ErrFull (r4c), policy.ErrRejected, bulkhead.ErrFull (failsafe-go)
//	breaker (*OpenError)                      breaker.ErrOpen, policy.ErrRejected, circuitbreaker.ErrOpen
//	ratelimit (*RateLimitedError)             ratelimit.ErrRateLimited, policy.ErrRejected, ratelimiter.ErrExceeded
//
//	failsafe-go error inside r4c             the caller of the pipeline sees an error matching
//	adaptivelimiter.ErrExceeded               it, policy.ErrRejected (a *policy.RejectedError, Kind KindAdaptiveLimiter)
//	adaptivethrottler.ErrExceeded             it, policy.ErrRejected (Kind KindAdaptiveThrottler)
//	bulkhead.ErrFull                          it, policy.ErrRejected, bulkhead.ErrFull (r4c) (Kind KindBulkhead; a drop)
//	circuitbreaker.ErrOpen                    it, policy.ErrRejected (Kind KindCircuitBreaker)
//	ratelimiter.ErrExceeded                   it, policy.ErrRejected (Kind KindRateLimiter)
//	timeout.ErrExceeded                       it, timeout.ErrCallTimeout (r4c), context.DeadlineExceeded (a drop)
//	retrypolicy.ExceededError of one above    it (errors.As), and the row of its last error
//	the caller's ctx.Err()                    it, unchanged
//
// errors.As finds r4c's own error types (*adaptivelimit.LimitExceededError
// and the like) through an [*Error], and failsafe-go's
// (retrypolicy.ExceededError) through a wrapped one.
//
// # What does not cross
//
// failsafe-go's execution listeners see r4c's policies as policies that
// never handle a result (IsFailure is err != nil; a rejection is a failure
// result). failsafe-go reads time.Now for its own timeouts, delays and
// open waits, so a failsafe-go policy inside an r4c pipeline follows the
// real clock (or a testing/synctest bubble), not the registry's
// ManualClock. failsafe-go's policy.CheckOnlyKey is honoured by
// [AdaptiveLimit] (as by failsafe-go's adaptive limiter) and not by the
// other three (as by failsafe-go's bulkhead, breaker and rate limiter).
package r4cfailsafe
