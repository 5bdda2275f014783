// Package adaptivelimit is r4c's adaptive concurrency limit: like a
// bulkhead it bounds how many calls run at once, but it finds the bound by
// itself, raising it while the dependency's latency holds and lowering it
// when latency rises or calls time out. Excess calls are rejected at once
// (or wait a bounded time, with MaxWait) instead of queueing behind slow
// ones.
//
// # Slots and samples
//
// A call takes a slot before it runs and gives it back when it ends. At
// most the current limit calls hold a slot; the limit starts at
// InitialLimit and stays within [MinLimit, MaxLimit]. A call that finds
// every slot taken fails at once with the instance's preallocated
// [*LimitExceededError] (errors.Is matches [ErrLimitExceeded] and
// policy.ErrRejected); the function is not called and nothing is
// allocated.
//
// A call that returns is a sample: its latency, from taking the slot to
// its end. A failure in DropOn (errors.Is; by default the call timeout and a
// full bulkhead) or accepted by DropIf is a sample marked as a drop: an
// overload signal. Any other failure, the caller's own ctx cancellation, a
// cancelled future and a panic free the slot and record nothing.
//
// # Windows
//
// Samples are grouped in windows of at least Window (1s) and at least
// MinWindowSamples (10). The first window opens when the limit is built. A
// window is over when now - start >= Window. When a call records a sample at
// or after that point, the call's own goroutine (after counting its own
// sample) ends the window: with enough samples it recomputes the limit from
// the window's average latency, the most calls seen in flight (counting
// those already in flight when the window began) and whether a drop
// happened, and the next window starts at that instant; with too few, the
// window's end is pushed out by one Window and it keeps its samples. With no
// traffic nothing moves. There is no background goroutine and no ticker.
// With Little only, a window of fewer than MinWindowSamples samples also ends
// once it has run two Windows with at least two samples for each slot of the
// limit (one call at a time of 1.8 s would take 18 s to gather ten); and a
// window also ends early, on the drop that brings its
// drops to max(2*MinWindowSamples, limit/2) if they are two thirds of its
// samples (a third in the window right after a growth; except right after
// the limit was cut), and Little also gets the
// window's number of drops, the average latency of its samples that were
// not drops, and the calls the limiter rejected during it.
//
// When the limit goes down below the calls in flight, nothing is
// interrupted: new calls are rejected until enough have ended. A disabled
// limit (Config.Disabled, key enabled=false) lets every call pass and
// measures nothing.
//
// # Algorithms
//
// [Gradient2] (the default) and [AIMD] compute exactly as Netflix
// concurrency-limits 0.5.4's Gradient2Limit and AIMDLimit, applied once per
// window; Gradient2 keeps its limit as a float (callers see the integer
// part), AIMD keeps an integer. [Vegas] follows VegasLimit, keeping a float
// limit, with one change: the probe jitter, a random number in [0.5, 1)
// there, is a fixed schedule here, so that runs repeat exactly: the k-th
// jitter (k = 0 when the limit is built, then one more per probe) is
// 0.5 + 0.5*frac((k+1)*0.6180339887498949), and Vegas re-measures its
// no-load latency in the window where jitter*ProbeMultiplier*estimate <=
// windows since the last probe.
//
// [Little] is r4c's own, and the algorithm we recommend for a dependency
// whose capacity is unknown (Gradient2 stays the default). It looks for the
// knee of the dependency, the concurrency past which more calls in flight
// buy only queueing: below it goodput follows the limit and latency stays at
// the no-load latency r0; above it latency follows the limit. By Little's
// law a dependency serving x calls a second without a queue holds x*r0 of
// them, and Little keeps the limit at that target plus 7% (plus one noise
// unit where epochs hold few samples, so that it errs above the knee, where
// an error costs a call of queue, not idle capacity). It reads a queue on
// the latency of the calls that succeeded (a drop reports its timeout, not
// the dependency's time) and drops by their share; Little's law, which
// counts slots, takes the latency of all. It judges
// epochs of at least 20 samples (100 in cruise, unless a queue shows
// sooner) with thresholds scaled to their measured
// noise, waits out the dead time after each change, and verifies every large
// change by how goodput answered it: slow start doubles the limit while
// goodput doubles too; a knee passed at the start is found by stepping down;
// a cut that goodput follows while latency stays high is tested by going back
// up, which tells a dependency that got slower (a new normal) from a capacity
// that fell, and only goodput itself, not latency, proves a new normal (one
// that the epochs' noise cannot tell is pooled with r0, not taken whole); a
// growth of one call that the target did not ask for, once cut back for
// overload, is not forced again from there but left to cruise's verified
// steps up; an r0 it could only infer is proven by one probe below the knee; an epoch in
// which a queue grows under a limit too high to bind (calls in flight
// climbing, goodput not) teaches no r0. An underload epoch (calls in flight
// under the limit on average, at most a tenth turned away) is no step down
// and no probe: its goodput is the demand's; if it turns calls away with no
// queue, the limit grows to where the demand's peaks fit. Drops well above
// their usual share at the knee (cut as deep as they pass it, and undone when
// goodput follows the cut with no queue below), a latency three times r0
// or a passed LatencyCeiling cut at once. docs/adaptive-limit.md has the whole design and
// docs/adaptation.md the scenario matrix it was checked on.
//
// Little's tuning is fixed; Smoothing, RTTTolerance, LongWindow, QueueSize,
// BackoffRatio and ProbeMultiplier do not apply to it. Its state is a
// fixed-size struct: a recompute allocates nothing.
//
// LatencyCeiling (off by default) marks a window whose average latency is
// strictly above it as overloaded, whatever the long-term average: Gradient2
// then uses its gradient floor of 0.5 and ignores its app-limited rule (so
// the limit moves to 0.9*limit + 0.2*QueueSize with the default smoothing);
// AIMD and Vegas treat the window as a drop; Little cuts at once, and
// skips the check for a new normal.
//
// # Waiting and priorities
//
// With MaxWait > 0, a call that finds no free slot waits up to MaxWait for
// one, honouring its ctx, instead of failing at once. Waiting calls are
// served by priority, then first come first served; while any call waits,
// new calls queue behind it. Only the waiting path allocates or locks.
//
// [WithPriority] marks a call as [PriorityLow], [PriorityNormal] (the
// default) or [PriorityHigh]. A low-priority call is admitted only while
// fewer than max(1, floor(LowPriorityShare*limit)) calls are in flight
// (LowPriorityShare defaults to 0.8), so low-priority work is shed first.
// Normal and high priority may use every slot; high priority goes first in
// the MaxWait queue. The ctx is read only when the calls in flight reach
// the low-priority share, so the ordinary path pays nothing for it.
//
// # Use
//
// In a pipeline, the registry builds the [Limiter] and links [Stage]. On
// its own:
//
//	l, err := adaptivelimit.New(adaptivelimit.Config{MaxLimit: 100}, policy.Env{})
//	...
//	p, err := l.Acquire(ctx)
//	if err != nil {
//		return err // *LimitExceededError, or ctx.Err() while waiting
//	}
//	err = call(ctx)
//	l.Release(p, l.Classify(ctx, err))
//
// [Limiter.Handle] gives the current limit, the calls in flight and a
// [Snapshot]. The limit publishes events.LimitChanged when its integer
// value changes and events.CallRejected when it rejects a call; admitted
// calls publish nothing.
//
// # Cost
//
// An admitted call costs one CAS to take its slot, two clock readings (one
// if an outer stage shares its start reading), one atomic add to free the
// slot and count the sample, one atomic add for its latency (into one of
// several cache-line-padded stripes, picked per goroutine) and a few atomic
// loads of read-mostly fields kept off the written line; no lock and no
// allocation. A rejection costs two loads, a
// compare and an atomic add to count it.
package adaptivelimit
