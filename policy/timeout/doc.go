// Package timeout bounds how long a call may take.
//
// A [Timeout] gives the call a ctx whose deadline is Timeout from now on the
// registry's clock (so ctx.Deadline() reaches HTTP and gRPC clients, and the
// deadline fires on a clocktest.ManualClock). If the deadline fires before
// the call returns, the caller gets a [*CallTimeoutError], which matches
// [ErrCallTimeout] and context.DeadlineExceeded with errors.Is. It is not a
// rejection: the function was called.
//
// # Modes
//
// By default the call runs on a goroutine of its own and the caller returns
// at the deadline even if the function ignores its ctx. The abandoned
// goroutine goes on until the function returns, and so does everything the
// stages inside the timeout hold for it (a bulkhead slot in particular):
// the timeout frees the caller, not the resources. A function that never
// returns keeps its goroutine and its slot forever.
//
// With Config.Cooperative the call runs on the caller's goroutine, which
// saves the goroutine, and the caller waits until the function returns. If
// the deadline fired before it returned, its outcome is dropped and the
// caller gets the zero value and the [*CallTimeoutError]. Use it only for
// functions that return promptly once their ctx is done.
//
// In both modes a call is a timeout only when the timeout's own deadline
// fired: if the caller's ctx is done first (cancelled, or its own earlier
// deadline passed), the caller gets ctx's error (or, in cooperative mode,
// what the function returned), never a [*CallTimeoutError].
//
// # Panics
//
// A panic in the function reaches the caller: in the default mode it is
// carried from the goroutine and raised again on the caller's goroutine. If
// the caller already returned with a timeout, nobody can receive the panic:
// it goes on in the goroutine and ends the program, as a panic on any
// goroutine does.
//
// # Cost
//
// Cooperative mode allocates only the deadline context (four allocations
// with the real clock and a cancellable parent). The default mode allocates
// the deadline context and its Done channel, which the context package makes
// on first use and which any function that honours its ctx makes too (five
// in all): the record it shares with its goroutine is recycled, and the
// goroutine starts without a closure allocation. Disabled, it allocates
// nothing.
package timeout
