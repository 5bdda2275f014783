package r4cprometheus

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// spec describes one metric family read from a policy kind's snapshot S,
// with the single variable label "instance".
type spec[S any] struct {
	name    string
	help    string
	counter bool
	// value returns the figure of one instance, or false when the instance
	// has no such figure (an algorithm without a long-term latency, a
	// breaker without enough calls to judge on).
	value func(S) (float64, bool)
}

func gauge[S any](name, help string, value func(S) float64) spec[S] {
	return spec[S]{name: name, help: help, value: func(s S) (float64, bool) { return value(s), true }}
}

func counter[S any](name, help string, value func(S) float64) spec[S] {
	return spec[S]{name: name, help: help, counter: true, value: func(s S) (float64, bool) { return value(s), true }}
}

func seconds(d time.Duration) float64 { return d.Seconds() }

var adaptiveLimitSpecs = []spec[adaptivelimit.Snapshot]{
	gauge("r4c_adaptivelimit_limit", "Current limit of the adaptive limit: how many calls may hold a slot at once.",
		func(s adaptivelimit.Snapshot) float64 { return float64(s.Limit) }),
	gauge("r4c_adaptivelimit_concurrent_calls", "Calls holding a slot of the adaptive limit.",
		func(s adaptivelimit.Snapshot) float64 { return float64(s.InFlight) }),
	gauge("r4c_adaptivelimit_waiting_calls", "Calls waiting for a slot of the adaptive limit (MaxWait).",
		func(s adaptivelimit.Snapshot) float64 { return float64(s.Waiting) }),
	gauge("r4c_adaptivelimit_estimated_limit", "The algorithm's estimate of the limit (fractional for Gradient2 and Vegas).",
		func(s adaptivelimit.Snapshot) float64 { return s.EstimatedLimit }),
	gauge("r4c_adaptivelimit_min_limit", "Lower bound of the adaptive limit.",
		func(s adaptivelimit.Snapshot) float64 { return float64(s.MinLimit) }),
	gauge("r4c_adaptivelimit_max_limit", "Upper bound of the adaptive limit.",
		func(s adaptivelimit.Snapshot) float64 { return float64(s.MaxLimit) }),
	gauge("r4c_adaptivelimit_window_latency_seconds", "Average latency of the adaptive limit's last completed window.",
		func(s adaptivelimit.Snapshot) float64 { return seconds(s.WindowLatency) }),
	{name: "r4c_adaptivelimit_long_latency_seconds", help: "Gradient2's long-term average latency after the last window.",
		value: func(s adaptivelimit.Snapshot) (float64, bool) {
			return seconds(s.LongLatency), s.Algorithm == adaptivelimit.Gradient2
		}},
	{name: "r4c_adaptivelimit_noload_latency_seconds", help: "Vegas's latency without queueing.",
		value: func(s adaptivelimit.Snapshot) (float64, bool) {
			return seconds(s.NoLoadLatency), s.Algorithm == adaptivelimit.Vegas
		}},
	gauge("r4c_adaptivelimit_window_max_concurrent_calls", "Most calls in flight during the adaptive limit's last completed window.",
		func(s adaptivelimit.Snapshot) float64 { return float64(s.MaxInFlight) }),
	counter("r4c_adaptivelimit_windows_total", "Windows the adaptive limit completed (each recomputed the limit).",
		func(s adaptivelimit.Snapshot) float64 { return float64(s.Windows) }),
	counter("r4c_adaptivelimit_drops_total", "Calls recorded as drops (overload signals) by the adaptive limit.",
		func(s adaptivelimit.Snapshot) float64 { return float64(s.Drops) }),
}

var timeoutSpecs = []spec[timeout.Snapshot]{
	gauge("r4c_timeout_duration_seconds", "Configured timeout.",
		func(s timeout.Snapshot) float64 { return seconds(s.Timeout) }),
	counter("r4c_timeout_timeouts_total", "Calls whose deadline fired before they returned.",
		func(s timeout.Snapshot) float64 { return float64(s.Timeouts) }),
}

var bulkheadSpecs = []spec[bulkhead.Snapshot]{
	gauge("r4c_bulkhead_concurrent_calls", "Calls holding a slot of the bulkhead.",
		func(s bulkhead.Snapshot) float64 { return float64(s.InFlight) }),
	gauge("r4c_bulkhead_max_concurrent_calls", "Slots of the bulkhead.",
		func(s bulkhead.Snapshot) float64 { return float64(s.MaxConcurrent) }),
	gauge("r4c_bulkhead_waiting_calls", "Calls waiting for a slot of the bulkhead (MaxWait).",
		func(s bulkhead.Snapshot) float64 { return float64(s.Waiting) }),
}

var rateLimitSpecs = []spec[ratelimit.Snapshot]{
	gauge("r4c_ratelimit_available_permits", "Permits of the rate limiter that could be taken now.",
		func(s ratelimit.Snapshot) float64 { return float64(s.Available) }),
	gauge("r4c_ratelimit_burst_permits", "Most permits of the rate limiter that can be taken at once.",
		func(s ratelimit.Snapshot) float64 { return float64(s.Burst) }),
	{name: "r4c_ratelimit_store_fallback", help: "1 while the rate limiter's store fails and calls are decided by its fallback, else 0; absent without a store.",
		value: func(s ratelimit.Snapshot) (float64, bool) { return b2f(s.Fallback), s.Store }},
	{name: "r4c_ratelimit_store_failures_total", help: "Calls to the rate limiter's store that failed or timed out; absent without a store.", counter: true,
		value: func(s ratelimit.Snapshot) (float64, bool) { return float64(s.StoreFailures), s.Store }},
	{name: "r4c_ratelimit_store_fallbacks_total", help: "Times the rate limiter fell back from its store; absent without a store.", counter: true,
		value: func(s ratelimit.Snapshot) (float64, bool) { return float64(s.Fallbacks), s.Store }},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var breakerSpecs = []spec[breaker.Snapshot]{
	{name: "r4c_breaker_failure_ratio", help: "Failed calls among the calls the breaker judges on (0 to 1); absent while too few.",
		value: func(s breaker.Snapshot) (float64, bool) { return s.FailureRate, s.FailureRate >= 0 }},
	{name: "r4c_breaker_slow_call_ratio", help: "Slow calls among the calls the breaker judges on (0 to 1); absent while too few.",
		value: func(s breaker.Snapshot) (float64, bool) { return s.SlowCallRate, s.SlowCallRate >= 0 }},
	gauge("r4c_breaker_buffered_calls", "Calls in the breaker's current window (closed) or trial calls that ended (half-open).",
		func(s breaker.Snapshot) float64 { return float64(s.BufferedCalls) }),
	counter("r4c_breaker_calls_total", "Calls the breaker recorded (successes and failures) since it was built or reset.",
		func(s breaker.Snapshot) float64 { return float64(s.Calls) }),
}

var retrySpecs = []spec[retry.Snapshot]{
	counter("r4c_retry_retries_total", "Retry attempts started (attempts after the first).",
		func(s retry.Snapshot) float64 { return float64(s.Retries) }),
	{name: "r4c_retry_budget_available", help: "Retries the retry budget allows now; absent without a budget.",
		value: func(s retry.Snapshot) (float64, bool) { return float64(s.BudgetAvailable), s.BudgetEnabled }},
}

var hedgeSpecs = []spec[hedge.Snapshot]{
	counter("r4c_hedge_calls_total", "Calls the hedge ran.",
		func(s hedge.Snapshot) float64 { return float64(s.Calls) }),
	counter("r4c_hedge_started_total", "Extra attempts the hedge started.",
		func(s hedge.Snapshot) float64 { return float64(s.HedgesStarted) }),
	counter("r4c_hedge_wins_total", "Calls won by an extra attempt rather than the first one.",
		func(s hedge.Snapshot) float64 { return float64(s.HedgeWins) }),
	counter("r4c_hedge_rejection_stops_total", "Calls in which an inner policy's rejection stopped the hedge from starting more attempts.",
		func(s hedge.Snapshot) float64 { return float64(s.RejectionStops) }),
}

var fallbackSpecs = []spec[fallback.Snapshot]{
	counter("r4c_fallback_calls_total", "Calls that went through the fallback.",
		func(s fallback.Snapshot) float64 { return float64(s.Calls) }),
	counter("r4c_fallback_handled_total", "Calls whose error the fallback handled.",
		func(s fallback.Snapshot) float64 { return float64(s.Handled) }),
	counter("r4c_fallback_func_failures_total", "Handled calls whose fallback function failed.",
		func(s fallback.Snapshot) float64 { return float64(s.FuncFailures) }),
}

// retryOutcomes are the values of the outcome label of r4c_retry_calls_total,
// with the snapshot field each one reads.
var retryOutcomes = []struct {
	name  string
	value func(retry.Snapshot) int64
}{
	{"success_without_retry", func(s retry.Snapshot) int64 { return s.SuccessesWithoutRetry }},
	{"success_with_retry", func(s retry.Snapshot) int64 { return s.SuccessesWithRetry }},
	{"failure_without_retry", func(s retry.Snapshot) int64 { return s.FailuresWithoutRetry }},
	{"failure_with_retry", func(s retry.Snapshot) int64 { return s.FailuresWithRetry }},
	{"exhausted", func(s retry.Snapshot) int64 { return s.Exhausted }},
	{"budget_rejected", func(s retry.Snapshot) int64 { return s.BudgetRejections }},
	{"cancelled", func(s retry.Snapshot) int64 { return s.Cancelled }},
}

// breakerStates are the values of the state label of r4c_breaker_state.
var breakerStates = []breaker.State{
	breaker.StateClosed, breaker.StateOpen, breaker.StateHalfOpen, breaker.StateDisabled, breaker.StateForcedOpen,
}

// family is a kind's specs with their descriptors, made for one Collector.
type family[S any] struct {
	specs []spec[S]
	descs []*prometheus.Desc
}

func newFamily[S any](specs []spec[S], constLabels prometheus.Labels) family[S] {
	f := family[S]{specs: specs, descs: make([]*prometheus.Desc, len(specs))}
	for i, s := range specs {
		f.descs[i] = prometheus.NewDesc(s.name, s.help, []string{"instance"}, constLabels)
	}
	return f
}

func (f family[S]) describe(ch chan<- *prometheus.Desc) {
	for _, d := range f.descs {
		ch <- d
	}
}

func (f family[S]) collect(ch chan<- prometheus.Metric, snaps map[string]S) {
	for id, snap := range snaps {
		for i, s := range f.specs {
			v, ok := s.value(snap)
			if !ok {
				continue
			}
			t := prometheus.GaugeValue
			if s.counter {
				t = prometheus.CounterValue
			}
			ch <- prometheus.MustNewConstMetric(f.descs[i], t, v, id)
		}
	}
}
