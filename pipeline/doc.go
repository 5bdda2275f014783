// Package pipeline composes r4c's policies around a call.
//
// A [Builder] collects the policies of one pipeline, by kind, each
// configured by a func(*Config); [Builder.Build] resolves them against a
// registry (named configurations, external keys, shared instances),
// validates everything and links the chain once. A [Pipeline] then runs any
// number of calls, concurrently, without looking anything up.
//
// # Order
//
// The order of the policies is fixed, whatever the order of the builder
// calls. Outermost first:
//
//	fallback → retry → circuit breaker → hedge → rate limiter →
//	adaptive limit → timeout → bulkhead → custom policies (Use) → the call
//
// So a timeout or a full bulkhead inside the adaptive limit is a drop (an
// overload signal); a call rejected by the adaptive limit has already taken
// a rate-limiter permit; the retry, the breaker and the hedge see the
// adaptive limit's rejection as an ordinary error; each retry attempt takes
// and frees its own slots, and a retry's wait holds none. Custom policies
// added with [Builder.Use] sit innermost, around the call, in the order of
// the Use calls.
//
// # Execution
//
// [Pipeline.Execute] and [Pipeline.ExecuteContext] run the call on the
// caller's goroutine. [Pipeline.ExecuteAsync] runs it on a goroutine of its
// own and returns a future. [Pipeline.ExecuteFuture] is for calls that are
// asynchronous already: it calls the function on the caller's goroutine, and
// every policy holds what it holds (slots, permits) until the returned
// future completes; the future the pipeline returns completes only after
// the policies have recorded the outcome, so a snapshot read after Get sees
// it. Cancelling that future cancels the work's ctx and frees its slots
// without a sample.
//
// # Allocations
//
// A synchronous call that succeeds or is rejected allocates nothing when
// its function captures no variables. What does allocate: a function that
// captures variables (it escapes to the heap: hoist it, or bind the
// pipeline to a function of an argument once with [Bind] or [BindFuture],
// which keep each call's argument in a recycled record); a timeout (its deadline context, and in the default mode a
// goroutine and its result); ExecuteAsync (a goroutine and a future);
// ExecuteFuture (a future per stage that holds something); a retry that
// waits (a timer) and an exhausted retry's error; a hedge (a goroutine per
// attempt); events, only when somebody subscribed.
//
// # Observation
//
// Every call that ends is reported to the call observers of the registry's
// bus (events.CallObserver, added with reg.Events().ObserveCalls; the
// metrics modules add one): the pipeline's name, the outcome (success,
// failure, timeout, rejected with the rejecting kind, or cancelled by the
// caller) and the latency on the registry's clock. A call checks for
// observers with one atomic load; an observed call reads the clock on entry
// and hands that reading to its first timed stage, which would have read
// it anyway, and allocates nothing more. A call whose function panics is
// not reported.
package pipeline
