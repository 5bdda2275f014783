package r4cprometheus

import (
	"context"
	"maps"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/internal/eventcount"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// Collector is a [prometheus.Collector] exporting the figures of every
// policy instance of one [r4c.Registry]. Make it with [NewCollector] and
// register it with a prometheus.Registerer.
//
// Gauges and snapshot counters are read from [r4c.Registry.Snapshot] at
// scrape time, so they cost the calls nothing. The two event-fed counters,
// r4c_calls_rejected_total and r4c_adaptivelimit_limit_changes_total, are
// incremented by a listener on [r4c.Registry.Events]: a lock-free map
// lookup and an atomic add per event, with no allocation once the instance
// is known (instances are known from their first scrape, or from
// NewCollector). They count from the moment the Collector was made.
//
// The call metrics, r4c_pipeline_calls_total and
// r4c_pipeline_call_duration_seconds, are fed by an events.CallObserver the
// Collector adds to the registry's bus: every call through a pipeline of
// the registry adds to a counter and, when admitted, to a histogram, with
// no allocation once its series exists. r4c_policy_calls_total is read from
// the snapshots at scrape time.
//
// A Collector is safe for concurrent use: scrapes may run while calls
// publish events. It starts no goroutine; [Collector.Close] unsubscribes it.
type Collector struct {
	reg         *r4c.Registry
	constLabels prometheus.Labels
	buckets     []float64
	exemplars   func(context.Context) (string, string)

	rejectedDesc *prometheus.Desc
	changesDesc  *prometheus.Desc
	stateDesc    *prometheus.Desc
	retryDesc    *prometheus.Desc
	outcomeDesc  *prometheus.Desc

	calls *calls

	adaptive  family[adaptivelimit.Snapshot]
	timeouts  family[timeout.Snapshot]
	bulkheads family[bulkhead.Snapshot]
	rates     family[ratelimit.Snapshot]
	breakers  family[breaker.Snapshot]
	retries   family[retry.Snapshot]
	hedges    family[hedge.Snapshot]
	fallbacks family[fallback.Snapshot]

	counts eventcount.Counts

	stop      func()
	stopCalls func()
	closeOnce sync.Once
}

var _ prometheus.Collector = (*Collector)(nil)

// Option configures a [Collector].
type Option interface {
	apply(*Collector)
}

type constLabelsOption prometheus.Labels

func (o constLabelsOption) apply(c *Collector) {
	if c.constLabels == nil {
		c.constLabels = prometheus.Labels{}
	}
	maps.Copy(c.constLabels, prometheus.Labels(o))
}

// WithConstLabels adds labels with fixed values to every metric of the
// Collector, for instance {"registry": "payments"} to tell apart the
// Collectors of two registries registered in the same
// prometheus.Registerer. The names must not be "instance", "kind", "state"
// or "outcome"; registering the Collector reports such a clash.
func WithConstLabels(labels prometheus.Labels) Option {
	return constLabelsOption(maps.Clone(labels))
}

// NewCollector returns a Collector for reg and subscribes it to
// reg.Events(). It reads reg.Snapshot() once to create the event-fed
// counters (at 0) of the instances built so far; instances built later are
// added at the next scrape. reg must not be nil (NewCollector panics).
//
// Call [Collector.Close] when the Collector is no longer scraped, to remove
// its listener from the registry's bus.
func NewCollector(reg *r4c.Registry, opts ...Option) *Collector {
	if reg == nil {
		panic("r4cprometheus: NewCollector with a nil registry")
	}
	c := &Collector{reg: reg}
	for _, o := range opts {
		if o != nil {
			o.apply(c)
		}
	}
	cl := c.constLabels
	c.rejectedDesc = prometheus.NewDesc("r4c_calls_rejected_total",
		"Calls a policy refused without running them, by policy kind and instance.",
		[]string{"kind", "instance"}, cl)
	c.changesDesc = prometheus.NewDesc("r4c_adaptivelimit_limit_changes_total",
		"Times the adaptive limit moved at the end of a window.",
		[]string{"instance"}, cl)
	c.stateDesc = prometheus.NewDesc("r4c_breaker_state",
		"State of the circuit breaker: 1 for the current state, 0 for the others.",
		[]string{"instance", "state"}, cl)
	c.retryDesc = prometheus.NewDesc("r4c_retry_calls_total",
		"Calls that ended through the retry, by outcome.",
		[]string{"instance", "outcome"}, cl)
	c.outcomeDesc = prometheus.NewDesc("r4c_policy_calls_total",
		"Calls a policy instance saw end in an outcome of its own kind: dropped, ignored, rejected, failure, timed_out, retried, hedged, fallback.",
		[]string{"kind", "instance", "outcome"}, cl)
	c.calls = newCalls(cl, c.buckets, c.exemplars)
	c.adaptive = newFamily(adaptiveLimitSpecs, cl)
	c.timeouts = newFamily(timeoutSpecs, cl)
	c.bulkheads = newFamily(bulkheadSpecs, cl)
	c.rates = newFamily(rateLimitSpecs, cl)
	c.breakers = newFamily(breakerSpecs, cl)
	c.retries = newFamily(retrySpecs, cl)
	c.hedges = newFamily(hedgeSpecs, cl)
	c.fallbacks = newFamily(fallbackSpecs, cl)

	c.counts.Known(reg.Snapshot())
	c.stop = reg.Events().Subscribe(c.counts.Listen)
	c.stopCalls = reg.Events().ObserveCalls(c.calls)
	return c
}

// Close unsubscribes the Collector from the registry's events and removes
// its call observer. The event-fed counters and the call metrics stop
// moving; scrapes still work. Close is idempotent.
func (c *Collector) Close() {
	c.closeOnce.Do(func() {
		c.stop()
		c.stopCalls()
	})
}

// Describe sends the descriptor of every metric the Collector may export.
// It implements [prometheus.Collector].
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.rejectedDesc
	ch <- c.changesDesc
	ch <- c.stateDesc
	ch <- c.retryDesc
	ch <- c.outcomeDesc
	c.calls.total.Describe(ch)
	c.calls.dur.Describe(ch)
	c.adaptive.describe(ch)
	c.timeouts.describe(ch)
	c.bulkheads.describe(ch)
	c.rates.describe(ch)
	c.breakers.describe(ch)
	c.retries.describe(ch)
	c.hedges.describe(ch)
	c.fallbacks.describe(ch)
}

// Collect reads reg.Snapshot() and sends every metric. It implements
// [prometheus.Collector]; it takes the registry's lock for the snapshot,
// never a lock the calls take.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	snap := c.reg.Snapshot()
	c.counts.Known(snap)

	c.adaptive.collect(ch, snap.AdaptiveLimits)
	c.timeouts.collect(ch, snap.Timeouts)
	c.bulkheads.collect(ch, snap.Bulkheads)
	c.rates.collect(ch, snap.RateLimits)
	c.breakers.collect(ch, snap.Breakers)
	c.retries.collect(ch, snap.Retries)
	c.hedges.collect(ch, snap.Hedges)
	c.fallbacks.collect(ch, snap.Fallbacks)

	for id, s := range snap.Breakers {
		for _, st := range breakerStates {
			v := 0.0
			if s.State == st {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(c.stateDesc, prometheus.GaugeValue, v, id, st.String())
		}
	}
	for id, s := range snap.Retries {
		for _, o := range retryOutcomes {
			ch <- prometheus.MustNewConstMetric(c.retryDesc, prometheus.CounterValue, float64(o.value(s)), id, o.name)
		}
	}
	c.counts.Rejected.Each(func(k eventcount.Key, n uint64) {
		ch <- prometheus.MustNewConstMetric(c.rejectedDesc, prometheus.CounterValue, float64(n), k.Kind, k.Instance)
	})
	c.counts.Changes.Each(func(k eventcount.Key, n uint64) {
		ch <- prometheus.MustNewConstMetric(c.changesDesc, prometheus.CounterValue, float64(n), k.Instance)
	})
	eventcount.PolicyOutcomes(snap, func(kind, instance, outcome string, n int64) {
		ch <- prometheus.MustNewConstMetric(c.outcomeDesc, prometheus.CounterValue, float64(n), kind, instance, outcome)
	})
	c.calls.total.Collect(ch)
	c.calls.dur.Collect(ch)
}
