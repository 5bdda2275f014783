// Package r4cprometheus exports the figures of an r4c registry to
// Prometheus (github.com/prometheus/client_golang).
//
// It is a Go module of its own, so that the r4c core pulls in no Prometheus
// dependency. One [Collector] covers every policy instance of one
// [r4c.Registry], including instances built after the Collector:
//
//	reg, _ := r4c.NewRegistry()
//	c := r4cprometheus.NewCollector(reg)
//	defer c.Close()
//	prometheus.MustRegister(c)
//
// # What it costs
//
// Nearly everything is read from reg.Snapshot() when Prometheus scrapes:
// the calls pay nothing for it. Two counters are fed by events, because no
// snapshot holds them: r4c_calls_rejected_total and
// r4c_adaptivelimit_limit_changes_total. The Collector subscribes to
// reg.Events() for them; its listener does a lock-free lookup in a small
// per-(kind, instance) cache and an atomic add, and allocates nothing once
// the instance is known. Subscribing makes the bus active, so the policies
// build and publish their events (rejections, limit changes, breaker
// transitions, retries, timeouts, hedges, fallbacks); admitted calls still
// publish nothing. The event-fed counters count from the moment the
// Collector was made.
//
// # Call metrics
//
// The Collector also observes every call of the registry's pipelines (it
// adds an events.CallObserver to reg.Events()): per pipeline, a counter of
// calls by outcome and a histogram of the latency of the admitted ones.
// What a call pays for it: one atomic load to see that it is observed, the
// clock reading on entry that the pipeline's first timed stage would have
// taken anyway, a lock-free lookup of the pipeline's series and an atomic
// add and a histogram observation; no allocation once the pipeline's
// outcome has been seen once (see BenchmarkAdmittedCall). With no Collector
// (and no other observer) a call pays the atomic load alone.
//
// Per policy instance, r4c_policy_calls_total counts the outcomes that
// belong to each kind, read from the snapshots at scrape time: dropped and
// ignored calls of an adaptive limit, failures and ignored calls of a
// breaker, rejections of the adaptive limit, bulkhead, rate limiter and
// breaker, timeouts, retries, hedges and fallbacks.
//
// # Metrics
//
// Every metric but the pipeline ones carries the label instance, the id of the policy instance.
// Instance ids are chosen by the program (pipeline names and Config.Name),
// never by requests, so the number of series is bounded. Three metrics
// carry one more label with a fixed set of values: kind (the rejecting
// policy), state (the breaker's states) and outcome (the retry's outcomes).
// The names are those of the OpenTelemetry module with dots turned into
// underscores, plus the unit and _total suffixes Prometheus expects.
//
//	r4c_pipeline_calls_total{pipeline,outcome,rejected_by} counter calls that ended, by outcome (rejected_by: the rejecting kind, or empty)
//	r4c_pipeline_call_duration_seconds{pipeline,outcome}  histogram latency of admitted calls (every outcome but rejected)
//	r4c_policy_calls_total{kind,instance,outcome}         counter  a policy instance's own outcomes (see below)
//	r4c_calls_rejected_total{kind,instance}               counter  calls refused without running (kind: adaptivelimit, bulkhead, ratelimit, breaker)
//	r4c_adaptivelimit_limit_changes_total{instance}       counter  times the limit moved at the end of a window
//	r4c_adaptivelimit_limit{instance}                     gauge    current limit
//	r4c_adaptivelimit_concurrent_calls{instance}          gauge    calls holding a slot
//	r4c_adaptivelimit_waiting_calls{instance}             gauge    calls waiting for a slot (MaxWait)
//	r4c_adaptivelimit_estimated_limit{instance}           gauge    the algorithm's (fractional) estimate
//	r4c_adaptivelimit_min_limit{instance}                 gauge    lower bound
//	r4c_adaptivelimit_max_limit{instance}                 gauge    upper bound
//	r4c_adaptivelimit_window_latency_seconds{instance}    gauge    average latency of the last window
//	r4c_adaptivelimit_long_latency_seconds{instance}      gauge    long-term average latency (Gradient2 only)
//	r4c_adaptivelimit_noload_latency_seconds{instance}    gauge    latency without queueing (Vegas only)
//	r4c_adaptivelimit_window_max_concurrent_calls{instance} gauge  most calls in flight in the last window
//	r4c_adaptivelimit_windows_total{instance}             counter  windows completed
//	r4c_adaptivelimit_drops_total{instance}               counter  calls recorded as drops
//	r4c_timeout_duration_seconds{instance}                gauge    configured timeout
//	r4c_timeout_timeouts_total{instance}                  counter  calls that timed out
//	r4c_bulkhead_concurrent_calls{instance}               gauge    calls holding a slot
//	r4c_bulkhead_max_concurrent_calls{instance}           gauge    slots
//	r4c_bulkhead_waiting_calls{instance}                  gauge    calls waiting for a slot (MaxWait)
//	r4c_ratelimit_available_permits{instance}             gauge    permits that could be taken now
//	r4c_ratelimit_burst_permits{instance}                 gauge    most permits that can be taken at once
//	r4c_ratelimit_store_fallback{instance}                gauge    1 while the store fails (only with a store)
//	r4c_ratelimit_store_failures_total{instance}          counter  store calls that failed or timed out (only with a store)
//	r4c_ratelimit_store_fallbacks_total{instance}         counter  times it fell back from its store (only with a store)
//	r4c_breaker_state{instance,state}                     gauge    1 for the current state, 0 for the others
//	r4c_breaker_failure_ratio{instance}                   gauge    failure ratio, 0 to 1 (absent while too few calls)
//	r4c_breaker_slow_call_ratio{instance}                 gauge    slow-call ratio, 0 to 1 (absent while too few calls)
//	r4c_breaker_buffered_calls{instance}                  gauge    calls in the current window
//	r4c_breaker_calls_total{instance}                     counter  calls recorded since built or reset
//	r4c_retry_calls_total{instance,outcome}               counter  calls that ended, by outcome
//	r4c_retry_retries_total{instance}                     counter  retry attempts started
//	r4c_retry_budget_available{instance}                  gauge    retries the budget allows now (absent without a budget)
//	r4c_hedge_calls_total{instance}                       counter  calls the hedge ran
//	r4c_hedge_started_total{instance}                     counter  extra attempts started
//	r4c_hedge_wins_total{instance}                        counter  calls won by an extra attempt
//	r4c_hedge_rejection_stops_total{instance}             counter  calls where a rejection stopped the hedging
//	r4c_fallback_calls_total{instance}                    counter  calls through the fallback
//	r4c_fallback_handled_total{instance}                  counter  calls whose error the fallback handled
//	r4c_fallback_func_failures_total{instance}            counter  handled calls whose fallback function failed
//
// The outcome label of the pipeline metrics takes success, failure,
// timeout, rejected and cancelled (the caller's own ctx; never a failure);
// rejected_by takes adaptivelimit, bulkhead, ratelimit, breaker, the Kind
// of a custom policy.RejectedError, or other. The outcome label of
// r4c_policy_calls_total takes, by kind: adaptivelimit dropped, ignored,
// rejected; breaker failure, ignored, rejected (rejected restarts at 0 on
// Reset); bulkhead and ratelimit rejected; timeout timed_out; retry
// retried; hedge hedged; fallback fallback. Pipeline names, like instance
// ids, are chosen by the program, and a series appears with the first call
// of its outcome, so the number of series stays bounded. The latency
// buckets run from 1ms to 10s; set them with [WithBuckets]. With
// [WithExemplars], a traced call's observations carry its trace_id and
// span_id as an exemplar.
//
// The state label takes the values closed, open, half-open, disabled and
// forced-open. The outcome label takes success_without_retry,
// success_with_retry, failure_without_retry, failure_with_retry, exhausted,
// budget_rejected and cancelled.
//
// Several registries can be exported through one prometheus.Registerer
// when each Collector gets a distinguishing label with [WithConstLabels].
package r4cprometheus
