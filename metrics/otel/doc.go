// Package r4cotel exports the figures of an r4c registry as OpenTelemetry
// metrics (go.opentelemetry.io/otel/metric).
//
// It is a Go module of its own, so that the r4c core pulls in no
// OpenTelemetry dependency. One [Register] call covers every policy
// instance of one [r4c.Registry], including instances built later:
//
//	reg, _ := r4c.NewRegistry()
//	m, err := r4cotel.Register(reg, r4cotel.WithMeterProvider(provider))
//	if err != nil { ... }
//	defer m.Close()
//
// # What it costs
//
// Every instrument is observable: the SDK calls one callback when it
// collects, and the callback reads reg.Snapshot(). The calls pay nothing for
// it. Two counters are fed by events, because no snapshot holds them:
// r4c.calls.rejected and r4c.adaptivelimit.limit.changes. Register
// subscribes to reg.Events() for them; the listener does a lock-free lookup
// in a small per-(kind, instance) cache and an atomic add, and allocates
// nothing once the instance is known. Subscribing makes the bus active, so
// the policies build and publish their events; admitted calls still publish
// nothing. The event counters count from the moment Register returned.
//
// Two instruments are synchronous: r4c.pipeline.calls (a counter) and
// r4c.pipeline.call.duration (a histogram), fed by an events.CallObserver
// that Register adds to reg.Events(). Every call through a pipeline of the
// registry pays one atomic load to see that it is observed, the clock
// reading on entry that the pipeline's first timed stage would have taken
// anyway, a lock-free lookup of its series (attribute sets are made once
// per pipeline and outcome) and the SDK's Add and Record; the caller's ctx
// reaches them, so a sampled span can become an exemplar. Nothing
// allocates once a series exists (see BenchmarkAdmittedCall). Without
// Register (or another observer) a call pays the atomic load alone.
//
// # Traces and logs
//
// [SpanEvents] returns a listener for events.Bus.SubscribeContext that adds
// an event to the span in the ctx of the call that caused it: a rejection,
// a retry, a timeout, a hedge, a fallback, a limit change (the call that
// ended the window) or a breaker's refusal. [TraceIDs] reads the trace and
// span ids from a ctx, for the log listeners of r4c (logging/slog and
// logging/zap take it in their WithTrace option).
//
// # Instruments
//
// Every data point but the pipeline ones carries the attribute instance,
// the id of the policy instance. Instance ids are chosen by the program (pipeline names and
// Config.Name), never by requests, so the number of series is bounded.
// Three instruments carry one more attribute with a fixed set of values:
// kind (the rejecting policy), state (the breaker's states) and outcome (the
// retry's outcomes). Gauges are Int64ObservableGauge or
// Float64ObservableGauge; counters are Int64ObservableCounter (monotonic
// cumulative sums).
//
//	r4c.pipeline.calls{pipeline,outcome,rejected_by}     counter  {call}    calls that ended, by outcome (rejected_by only for rejected calls)
//	r4c.pipeline.call.duration{pipeline,outcome}         histogram s        latency of admitted calls (every outcome but rejected)
//	r4c.policy.calls{kind,instance,outcome}              counter  {call}    a policy instance's own outcomes (see below)
//	r4c.calls.rejected{kind,instance}                    counter  {call}    calls refused without running (kind: adaptivelimit, bulkhead, ratelimit, breaker)
//	r4c.adaptivelimit.limit.changes{instance}            counter  {change}  times the limit moved at the end of a window
//	r4c.adaptivelimit.limit{instance}                    gauge    {call}    current limit
//	r4c.adaptivelimit.concurrent.calls{instance}         gauge    {call}    calls holding a slot
//	r4c.adaptivelimit.waiting.calls{instance}            gauge    {call}    calls waiting for a slot (MaxWait)
//	r4c.adaptivelimit.estimated.limit{instance}          gauge    {call}    the algorithm's (fractional) estimate
//	r4c.adaptivelimit.min.limit{instance}                gauge    {call}    lower bound
//	r4c.adaptivelimit.max.limit{instance}                gauge    {call}    upper bound
//	r4c.adaptivelimit.window.latency{instance}           gauge    s         average latency of the last window
//	r4c.adaptivelimit.long.latency{instance}             gauge    s         long-term average latency (Gradient2 only)
//	r4c.adaptivelimit.noload.latency{instance}           gauge    s         latency without queueing (Vegas only)
//	r4c.adaptivelimit.window.max.concurrent.calls{instance} gauge {call}    most calls in flight in the last window
//	r4c.adaptivelimit.windows{instance}                  counter  {window}  windows completed
//	r4c.adaptivelimit.drops{instance}                    counter  {call}    calls recorded as drops
//	r4c.timeout.duration{instance}                       gauge    s         configured timeout
//	r4c.timeout.timeouts{instance}                       counter  {call}    calls that timed out
//	r4c.bulkhead.concurrent.calls{instance}              gauge    {call}    calls holding a slot
//	r4c.bulkhead.max.concurrent.calls{instance}          gauge    {call}    slots
//	r4c.bulkhead.waiting.calls{instance}                 gauge    {call}    calls waiting for a slot (MaxWait)
//	r4c.ratelimit.available.permits{instance}            gauge    {permit}  permits that could be taken now
//	r4c.ratelimit.burst.permits{instance}                gauge    {permit}  most permits that can be taken at once
//	r4c.ratelimit.store.fallback{instance}               gauge    1         1 while the store fails (only with a store)
//	r4c.ratelimit.store.failures{instance}               counter  {call}    store calls that failed or timed out (only with a store)
//	r4c.ratelimit.store.fallbacks{instance}              counter  {fallback} times it fell back from its store (only with a store)
//	r4c.breaker.state{instance,state}                    gauge    {state}   1 for the current state, 0 for the others
//	r4c.breaker.failure.ratio{instance}                  gauge    1         failure ratio, 0 to 1 (absent while too few calls)
//	r4c.breaker.slow.call.ratio{instance}                gauge    1         slow-call ratio, 0 to 1 (absent while too few calls)
//	r4c.breaker.buffered.calls{instance}                 gauge    {call}    calls in the current window
//	r4c.breaker.calls{instance}                          counter  {call}    calls recorded since built or reset
//	r4c.retry.calls{instance,outcome}                    counter  {call}    calls that ended, by outcome
//	r4c.retry.retries{instance}                          counter  {attempt} retry attempts started
//	r4c.retry.budget.available{instance}                 gauge    {attempt} retries the budget allows now (absent without a budget)
//	r4c.hedge.calls{instance}                            counter  {call}    calls the hedge ran
//	r4c.hedge.started{instance}                          counter  {attempt} extra attempts started
//	r4c.hedge.wins{instance}                             counter  {call}    calls won by an extra attempt
//	r4c.hedge.rejection.stops{instance}                  counter  {call}    calls where a rejection stopped the hedging
//	r4c.fallback.calls{instance}                         counter  {call}    calls through the fallback
//	r4c.fallback.handled{instance}                       counter  {call}    calls whose error the fallback handled
//	r4c.fallback.func.failures{instance}                 counter  {call}    handled calls whose fallback function failed
//
// The outcome attribute of the pipeline instruments takes success,
// failure, timeout, rejected and cancelled (the caller's own ctx, never a
// failure); rejected_by takes adaptivelimit, bulkhead, ratelimit, breaker,
// the Kind of a custom policy.RejectedError, or other. The outcome
// attribute of r4c.policy.calls takes, by kind: adaptivelimit dropped,
// ignored, rejected; breaker failure, ignored, rejected (rejected restarts
// at 0 on Reset); bulkhead and ratelimit rejected; timeout timed_out;
// retry retried; hedge hedged; fallback fallback. A pipeline's series
// appears with the first call of its outcome. The duration histogram
// advises bucket boundaries from 1ms to 10s ([WithBuckets]); its name and
// unit follow the OpenTelemetry convention for durations (seconds, a
// ".duration" name).
//
// The state attribute takes the values closed, open, half-open, disabled
// and forced-open. The outcome attribute of r4c.retry.calls takes success_without_retry,
// success_with_retry, failure_without_retry, failure_with_retry,
// exhausted, budget_rejected and cancelled. The Prometheus module
// (metrics/prometheus) exports the same figures under the same names with
// dots turned into underscores.
package r4cotel
