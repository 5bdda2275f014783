// Package bulkhead limits how many calls run at the same time.
//
// A [Bulkhead] has MaxConcurrent slots. A call takes a slot before it runs
// and gives it back when it returns, fails or panics. When every slot is
// taken, a new call is rejected at once with the bulkhead's
// [*BulkheadFullError] (matching [ErrFull] and policy.ErrRejected: the
// function was not called), or, with MaxWait set, waits up to MaxWait for a
// slot, first come first served. A caller whose ctx is done while it waits
// gets ctx's error, not "full", and holds nothing.
//
// Use a bulkhead when you know how many calls a dependency or a resource
// can take (a pool of 10 connections, a licence for 4 sessions). When the
// right number is unknown or changes, use the adaptive limit instead.
//
// In a pipeline the bulkhead is the innermost policy, inside the timeout: a
// call that times out in the default timeout mode keeps its slot until the
// function really returns. Inside an adaptive limit, a full bulkhead is a
// drop (an overload signal).
//
// Taking a free slot and giving it back are lock-free and allocate nothing;
// a rejection returns a preallocated error and allocates nothing. Only a
// call that waits takes a mutex and allocates.
package bulkhead
