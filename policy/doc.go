// Package policy holds the contract every r4c policy implements, the family
// of rejection errors they share, and the clock seam through which every
// policy reads time.
//
// # The contract
//
// A [Policy] decorates one call. It receives the rest of the chain as a
// [Next] value and decides whether, when and how often to call it. Next is a
// small value passed down the stack: it is never stored, and calling it does
// not allocate. Built-in policies implement [Link], which in addition passes
// clock readings between stages, so that a pipeline of several timed policies
// reads the clock once on entry and once on exit.
//
// # Rejections
//
// Every policy that refuses to run a call returns an error that matches
// [ErrRejected] with [errors.Is]: the function was not called, so it is safe
// to fall back or to try elsewhere. The policy's own sentinel (for example
// adaptivelimit.ErrLimitExceeded) tells why, and [errors.As] with a
// [*RejectedError] tells which kind and instance refused it.
//
// # Finishing a call
//
// The user's code runs inside a call's bookkeeping: predicates, listeners,
// completion callbacks. The rule is the same everywhere: the stage's own
// bookkeeping first (free the slot or permit, record the sample), then the
// user's code, each party guarded so that a panic in one lets every other
// run, and the first panic goes on after, unchanged. A predicate that
// panics counts the call as a failure where the policy counts outcomes.
// [Forward] is how every stage finishes an asynchronous call.
//
// # Time
//
// Time comes only from a [Clock]. [System] is the real clock; the package
// clocktest provides a manual one for deterministic tests. Monotonic readings
// ([Clock.Nanotime]) are only ever subtracted from one another: inside a
// testing/synctest bubble they can be negative.
package policy
