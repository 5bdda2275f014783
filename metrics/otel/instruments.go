package r4cotel

import (
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// form is the kind of instrument a spec makes.
type form uint8

const (
	intGauge   form = iota // Int64ObservableGauge
	floatGauge             // Float64ObservableGauge
	intCounter             // Int64ObservableCounter (cumulative totals)
)

// spec describes one instrument read from a policy kind's snapshot S, with
// the attribute "instance".
type spec[S any] struct {
	name, desc, unit string
	form             form
	// value returns the figure of one instance, or false when the instance
	// has no such figure (an algorithm without a long-term latency, a
	// breaker without enough calls to judge on).
	value func(S) (float64, bool)
}

func always[S any](f func(S) float64) func(S) (float64, bool) {
	return func(s S) (float64, bool) { return f(s), true }
}

func seconds(d time.Duration) float64 { return d.Seconds() }

var adaptiveLimitSpecs = []spec[adaptivelimit.Snapshot]{
	{"r4c.adaptivelimit.limit", "Current limit of the adaptive limit: how many calls may hold a slot at once.", "{call}", intGauge,
		always(func(s adaptivelimit.Snapshot) float64 { return float64(s.Limit) })},
	{"r4c.adaptivelimit.concurrent.calls", "Calls holding a slot of the adaptive limit.", "{call}", intGauge,
		always(func(s adaptivelimit.Snapshot) float64 { return float64(s.InFlight) })},
	{"r4c.adaptivelimit.waiting.calls", "Calls waiting for a slot of the adaptive limit (MaxWait).", "{call}", intGauge,
		always(func(s adaptivelimit.Snapshot) float64 { return float64(s.Waiting) })},
	{"r4c.adaptivelimit.estimated.limit", "The algorithm's estimate of the limit (fractional for Gradient2 and Vegas).", "{call}", floatGauge,
		always(func(s adaptivelimit.Snapshot) float64 { return s.EstimatedLimit })},
	{"r4c.adaptivelimit.min.limit", "Lower bound of the adaptive limit.", "{call}", intGauge,
		always(func(s adaptivelimit.Snapshot) float64 { return float64(s.MinLimit) })},
	{"r4c.adaptivelimit.max.limit", "Upper bound of the adaptive limit.", "{call}", intGauge,
		always(func(s adaptivelimit.Snapshot) float64 { return float64(s.MaxLimit) })},
	{"r4c.adaptivelimit.window.latency", "Average latency of the adaptive limit's last completed window.", "s", floatGauge,
		always(func(s adaptivelimit.Snapshot) float64 { return seconds(s.WindowLatency) })},
	{"r4c.adaptivelimit.long.latency", "Gradient2's long-term average latency after the last window.", "s", floatGauge,
		func(s adaptivelimit.Snapshot) (float64, bool) {
			return seconds(s.LongLatency), s.Algorithm == adaptivelimit.Gradient2
		}},
	{"r4c.adaptivelimit.noload.latency", "Vegas's latency without queueing.", "s", floatGauge,
		func(s adaptivelimit.Snapshot) (float64, bool) {
			return seconds(s.NoLoadLatency), s.Algorithm == adaptivelimit.Vegas
		}},
	{"r4c.adaptivelimit.window.max.concurrent.calls", "Most calls in flight during the adaptive limit's last completed window.", "{call}", intGauge,
		always(func(s adaptivelimit.Snapshot) float64 { return float64(s.MaxInFlight) })},
	{"r4c.adaptivelimit.windows", "Windows the adaptive limit completed (each recomputed the limit).", "{window}", intCounter,
		always(func(s adaptivelimit.Snapshot) float64 { return float64(s.Windows) })},
	{"r4c.adaptivelimit.drops", "Calls recorded as drops (overload signals) by the adaptive limit.", "{call}", intCounter,
		always(func(s adaptivelimit.Snapshot) float64 { return float64(s.Drops) })},
}

var timeoutSpecs = []spec[timeout.Snapshot]{
	{"r4c.timeout.duration", "Configured timeout.", "s", floatGauge,
		always(func(s timeout.Snapshot) float64 { return seconds(s.Timeout) })},
	{"r4c.timeout.timeouts", "Calls whose deadline fired before they returned.", "{call}", intCounter,
		always(func(s timeout.Snapshot) float64 { return float64(s.Timeouts) })},
}

var bulkheadSpecs = []spec[bulkhead.Snapshot]{
	{"r4c.bulkhead.concurrent.calls", "Calls holding a slot of the bulkhead.", "{call}", intGauge,
		always(func(s bulkhead.Snapshot) float64 { return float64(s.InFlight) })},
	{"r4c.bulkhead.max.concurrent.calls", "Slots of the bulkhead.", "{call}", intGauge,
		always(func(s bulkhead.Snapshot) float64 { return float64(s.MaxConcurrent) })},
	{"r4c.bulkhead.waiting.calls", "Calls waiting for a slot of the bulkhead (MaxWait).", "{call}", intGauge,
		always(func(s bulkhead.Snapshot) float64 { return float64(s.Waiting) })},
}

var rateLimitSpecs = []spec[ratelimit.Snapshot]{
	{"r4c.ratelimit.available.permits", "Permits of the rate limiter that could be taken now.", "{permit}", intGauge,
		always(func(s ratelimit.Snapshot) float64 { return float64(s.Available) })},
	{"r4c.ratelimit.burst.permits", "Most permits of the rate limiter that can be taken at once.", "{permit}", intGauge,
		always(func(s ratelimit.Snapshot) float64 { return float64(s.Burst) })},
	{"r4c.ratelimit.store.fallback", "1 while the rate limiter's store fails and calls are decided by its fallback, else 0; absent without a store.", "1", intGauge,
		func(s ratelimit.Snapshot) (float64, bool) { return b2f(s.Fallback), s.Store }},
	{"r4c.ratelimit.store.failures", "Calls to the rate limiter's store that failed or timed out; absent without a store.", "{call}", intCounter,
		func(s ratelimit.Snapshot) (float64, bool) { return float64(s.StoreFailures), s.Store }},
	{"r4c.ratelimit.store.fallbacks", "Times the rate limiter fell back from its store; absent without a store.", "{fallback}", intCounter,
		func(s ratelimit.Snapshot) (float64, bool) { return float64(s.Fallbacks), s.Store }},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var breakerSpecs = []spec[breaker.Snapshot]{
	{"r4c.breaker.failure.ratio", "Failed calls among the calls the breaker judges on (0 to 1); absent while too few.", "1", floatGauge,
		func(s breaker.Snapshot) (float64, bool) { return s.FailureRate, s.FailureRate >= 0 }},
	{"r4c.breaker.slow.call.ratio", "Slow calls among the calls the breaker judges on (0 to 1); absent while too few.", "1", floatGauge,
		func(s breaker.Snapshot) (float64, bool) { return s.SlowCallRate, s.SlowCallRate >= 0 }},
	{"r4c.breaker.buffered.calls", "Calls in the breaker's current window (closed) or trial calls that ended (half-open).", "{call}", intGauge,
		always(func(s breaker.Snapshot) float64 { return float64(s.BufferedCalls) })},
	{"r4c.breaker.calls", "Calls the breaker recorded (successes and failures) since it was built or reset.", "{call}", intCounter,
		always(func(s breaker.Snapshot) float64 { return float64(s.Calls) })},
}

var retrySpecs = []spec[retry.Snapshot]{
	{"r4c.retry.retries", "Retry attempts started (attempts after the first).", "{attempt}", intCounter,
		always(func(s retry.Snapshot) float64 { return float64(s.Retries) })},
	{"r4c.retry.budget.available", "Retries the retry budget allows now; absent without a budget.", "{attempt}", intGauge,
		func(s retry.Snapshot) (float64, bool) { return float64(s.BudgetAvailable), s.BudgetEnabled }},
}

var hedgeSpecs = []spec[hedge.Snapshot]{
	{"r4c.hedge.calls", "Calls the hedge ran.", "{call}", intCounter,
		always(func(s hedge.Snapshot) float64 { return float64(s.Calls) })},
	{"r4c.hedge.started", "Extra attempts the hedge started.", "{attempt}", intCounter,
		always(func(s hedge.Snapshot) float64 { return float64(s.HedgesStarted) })},
	{"r4c.hedge.wins", "Calls won by an extra attempt rather than the first one.", "{call}", intCounter,
		always(func(s hedge.Snapshot) float64 { return float64(s.HedgeWins) })},
	{"r4c.hedge.rejection.stops", "Calls in which an inner policy's rejection stopped the hedge from starting more attempts.", "{call}", intCounter,
		always(func(s hedge.Snapshot) float64 { return float64(s.RejectionStops) })},
}

var fallbackSpecs = []spec[fallback.Snapshot]{
	{"r4c.fallback.calls", "Calls that went through the fallback.", "{call}", intCounter,
		always(func(s fallback.Snapshot) float64 { return float64(s.Calls) })},
	{"r4c.fallback.handled", "Calls whose error the fallback handled.", "{call}", intCounter,
		always(func(s fallback.Snapshot) float64 { return float64(s.Handled) })},
	{"r4c.fallback.func.failures", "Handled calls whose fallback function failed.", "{call}", intCounter,
		always(func(s fallback.Snapshot) float64 { return float64(s.FuncFailures) })},
}

// retryOutcomes are the values of the outcome attribute of r4c.retry.calls,
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

// breakerStates are the values of the state attribute of r4c.breaker.state.
var breakerStates = []breaker.State{
	breaker.StateClosed, breaker.StateOpen, breaker.StateHalfOpen, breaker.StateDisabled, breaker.StateForcedOpen,
}

// family is a kind's specs with their instruments, made for one [Metrics].
type family[S any] struct {
	specs []spec[S]
	insts []metric.Observable
}

// newFamily creates the instruments of specs on meter and appends them to
// all.
func newFamily[S any](meter metric.Meter, specs []spec[S], all *[]metric.Observable) (family[S], error) {
	f := family[S]{specs: specs, insts: make([]metric.Observable, len(specs))}
	for i, s := range specs {
		inst, err := instrument(meter, s.name, s.desc, s.unit, s.form)
		if err != nil {
			return f, err
		}
		f.insts[i] = inst
		*all = append(*all, inst)
	}
	return f, nil
}

func instrument(meter metric.Meter, name, desc, unit string, form form) (metric.Observable, error) {
	switch form {
	case floatGauge:
		return meter.Float64ObservableGauge(name, metric.WithDescription(desc), metric.WithUnit(unit))
	case intCounter:
		return meter.Int64ObservableCounter(name, metric.WithDescription(desc), metric.WithUnit(unit))
	default:
		return meter.Int64ObservableGauge(name, metric.WithDescription(desc), metric.WithUnit(unit))
	}
}

// observe reports the figures of every instance of snaps. attrs returns the
// attributes of an instance.
func (f family[S]) observe(o metric.Observer, snaps map[string]S, attrs func(attrKey) metric.MeasurementOption) {
	for id, snap := range snaps {
		opt := attrs(attrKey{instance: id})
		for i, s := range f.specs {
			v, ok := s.value(snap)
			if !ok {
				continue
			}
			observe(o, f.insts[i], v, opt)
		}
	}
}

func observe(o metric.Observer, inst metric.Observable, v float64, opt metric.MeasurementOption) {
	switch inst := inst.(type) {
	case metric.Float64Observable:
		o.ObserveFloat64(inst, v, opt)
	case metric.Int64Observable:
		o.ObserveInt64(inst, int64(v), opt)
	}
}
