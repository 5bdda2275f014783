// Package retry calls a failed call again, after a wait, while its error is
// worth retrying.
//
// A [Retry] is built from a [Config] by [New] and sits in a pipeline through
// [Stage], outside the circuit breaker and every limit: fallback → retry →
// circuit breaker → hedge → rate limiter → adaptive limit → timeout →
// bulkhead → the call. Each attempt goes through all the stages inside
// afresh, taking and freeing its own slots and permits; the wait between
// two attempts holds none.
//
// # What is retried
//
// By default every error is retried except the caller's own cancellation
// (its ctx is done), which is returned at once and untouched. RetryOn and
// RetryIf narrow the errors worth retrying; AbortOn and AbortIf list errors
// never retried, and win over RetryOn. Rejections from the stages inside
// are ordinary errors here: a full adaptive limit
// (adaptivelimit.ErrLimitExceeded), an open breaker (breaker.ErrOpen) or a
// full bulkhead is retried after the wait unless listed in AbortOn; to
// abort on every rejection, list [policy.ErrRejected]. RetryIfResult
// retries on a result.
//
// # Waits
//
// Retry n waits Wait × Multiplier^(n-1), capped at MaxDelay, spread at
// random by Jitter. Waits run on the registry's clock (policy.Env.Clock),
// honour ctx, and publish an events.RetryAttempt before they start.
// Config.WaitFunc replaces the computed wait by one of its choosing, such as
// the wait the failed attempt's error asks for ([RetryAfterWait]).
//
// # Budget
//
// With BudgetRatio > 0, retries share a budget: over the last BudgetWindow,
// they may not exceed BudgetMinRetries + BudgetRatio × calls. When a
// dependency fails for everyone, retries then add at most BudgetRatio to
// its load instead of multiplying it by MaxAttempts.
//
// # Errors
//
// A call that gives up on an error worth retrying returns an
// [*ExhaustedError], which matches [ErrExhausted] (and [ErrBudgetExhausted]
// when the budget stopped it) and unwraps to the last attempt's error. Any
// other error is the last attempt's, unchanged.
//
// # Cost
//
// A call whose first attempt succeeds allocates nothing. Each wait
// allocates a timer, and giving up allocates the ExhaustedError.
package retry
