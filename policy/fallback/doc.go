// Package fallback replaces the outcome of a failed call with a value of
// your choice, or with the outcome of a function that gets the error.
//
// A [Fallback] decides which errors it handles: those listed in
// Config.HandleOn (matched with errors.Is) or accepted by Config.HandleIf,
// or, when both are empty, every error. It never handles the caller's own
// cancellation: a caller that gave up gets its ctx error back, not a
// substitute. For a handled error the call returns Config.Value with a nil
// error, or, when Config.Func is set, whatever Func returns.
//
// A Fallback's core knows nothing of the pipeline's result type T; the
// stage made by [Stage] for a T checks once, when it is built, that Value
// holds a T. [Return] and [Call] set Value and Func with the type checked by
// the compiler instead:
//
//	p, err := pipeline.NewBuilder[string](reg, "search").
//		Fallback(fallback.Return("no results")).
//		Build()
//
// In a pipeline the fallback is the outermost stage: it sees the outcome
// after the retry has given up, including rejections (an open breaker, a
// full limit: errors.Is(err, policy.ErrRejected)) and timeouts.
//
// Events: events.FallbackUsed for each handled error. Figures:
// [Handle.Snapshot]. A fallback reads no clock and starts no goroutine; a
// synchronous call allocates nothing of its own, on any path (Func and
// event listeners may).
package fallback
