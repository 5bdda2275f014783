package r4cotel

import (
	"context"
	"errors"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

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

// ScopeName is the instrumentation scope of the meter the instruments are
// created on.
const ScopeName = "github.com/resilience4cata/r4c/metrics/otel"

// ErrNilRegistry is returned by [Register] when given a nil registry.
var ErrNilRegistry = errors.New("r4cotel: nil registry")

// Metrics is the OpenTelemetry instrumentation of one [r4c.Registry]: the
// observable instruments of every policy instance and the listener that
// feeds the event counters. Make it with [Register]; stop it with
// [Metrics.Close].
//
// Every instrument is observable: its value is read when the SDK collects,
// from [r4c.Registry.Snapshot] or from the event counters, so the calls pay
// nothing for the gauges and snapshot counters. The two event-fed counters,
// r4c.calls.rejected and r4c.adaptivelimit.limit.changes, are incremented by
// a listener on [r4c.Registry.Events]: a lock-free map lookup and an atomic
// add per event, with no allocation once the instance is known. They count
// from the moment Register returned.
//
// The call instruments, r4c.pipeline.calls and r4c.pipeline.call.duration,
// are synchronous, fed by an events.CallObserver that Register adds to the
// registry's bus: every call through a pipeline of the registry adds to
// them, with no allocation once its series exists.
//
// Metrics is safe for concurrent use and starts no goroutine.
type Metrics struct {
	reg     *r4c.Registry
	base    []attribute.KeyValue
	meter   metric.Meter
	buckets []float64

	rejectedInst metric.Int64ObservableCounter
	changesInst  metric.Int64ObservableCounter
	stateInst    metric.Int64ObservableGauge
	retryInst    metric.Int64ObservableCounter
	outcomeInst  metric.Int64ObservableCounter

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

	mu    sync.Mutex // serialises callbacks; guards attrs
	attrs map[attrKey]metric.MeasurementOption

	registration metric.Registration
	stop         func()
	stopCalls    func()
	closeOnce    sync.Once
	closeErr     error
}

// attrKey names the attributes of one data point; empty fields are left
// out.
type attrKey struct{ instance, kind, state, outcome string }

// Option configures [Register].
type Option interface {
	apply(*Metrics)
}

type optionFunc func(*Metrics)

func (f optionFunc) apply(m *Metrics) { f(m) }

// WithMeterProvider makes Register create its meter (scope [ScopeName]) on
// mp. Default: the global provider, otel.GetMeterProvider(). A nil mp
// leaves the default.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(m *Metrics) {
		if mp != nil {
			m.meter = mp.Meter(ScopeName)
		}
	})
}

// WithAttributes adds attributes to every data point, for instance
// attribute.String("registry", "payments") to tell apart the instruments of
// two registries sharing a meter provider. The keys must not be "instance",
// "kind", "state" or "outcome" (a later attribute with the same key wins, so
// the data points would clash).
func WithAttributes(attrs ...attribute.KeyValue) Option {
	attrs = append([]attribute.KeyValue(nil), attrs...)
	return optionFunc(func(m *Metrics) { m.base = append(m.base, attrs...) })
}

// Register creates the instruments of reg's policies, registers the
// callback that observes them and subscribes to reg.Events(). It reads
// reg.Snapshot() once to create the event counters (at 0) of the instances
// built so far; instances built later are added at the next collection.
//
// It returns [ErrNilRegistry] for a nil reg, and the meter's error if an
// instrument or the callback cannot be created (then nothing is left
// registered or subscribed).
func Register(reg *r4c.Registry, opts ...Option) (*Metrics, error) {
	if reg == nil {
		return nil, ErrNilRegistry
	}
	m := &Metrics{reg: reg, attrs: map[attrKey]metric.MeasurementOption{}}
	for _, o := range opts {
		if o != nil {
			o.apply(m)
		}
	}
	if m.meter == nil {
		m.meter = otel.GetMeterProvider().Meter(ScopeName)
	}
	var all []metric.Observable
	if err := m.instruments(&all); err != nil {
		return nil, err
	}
	calls, err := newCalls(m.meter, m.base, m.buckets)
	if err != nil {
		return nil, err
	}
	m.calls = calls
	m.counts.Known(reg.Snapshot())
	r, err := m.meter.RegisterCallback(m.observe, all...)
	if err != nil {
		return nil, err
	}
	m.registration = r
	m.stop = reg.Events().Subscribe(m.counts.Listen)
	m.stopCalls = reg.Events().ObserveCalls(m.calls)
	return m, nil
}

// instruments creates every instrument on m.meter and appends them to all.
func (m *Metrics) instruments(all *[]metric.Observable) error {
	var err error
	m.rejectedInst, err = m.meter.Int64ObservableCounter("r4c.calls.rejected",
		metric.WithDescription("Calls a policy refused without running them, by policy kind and instance."),
		metric.WithUnit("{call}"))
	if err != nil {
		return err
	}
	m.changesInst, err = m.meter.Int64ObservableCounter("r4c.adaptivelimit.limit.changes",
		metric.WithDescription("Times the adaptive limit moved at the end of a window."),
		metric.WithUnit("{change}"))
	if err != nil {
		return err
	}
	m.stateInst, err = m.meter.Int64ObservableGauge("r4c.breaker.state",
		metric.WithDescription("State of the circuit breaker: 1 for the current state, 0 for the others."),
		metric.WithUnit("{state}"))
	if err != nil {
		return err
	}
	m.retryInst, err = m.meter.Int64ObservableCounter("r4c.retry.calls",
		metric.WithDescription("Calls that ended through the retry, by outcome."),
		metric.WithUnit("{call}"))
	if err != nil {
		return err
	}
	m.outcomeInst, err = m.meter.Int64ObservableCounter("r4c.policy.calls",
		metric.WithDescription("Calls a policy instance saw end in an outcome of its own kind: dropped, ignored, rejected, failure, timed_out, retried, hedged, fallback."),
		metric.WithUnit("{call}"))
	if err != nil {
		return err
	}
	*all = append(*all, m.rejectedInst, m.changesInst, m.stateInst, m.retryInst, m.outcomeInst)
	if m.adaptive, err = newFamily(m.meter, adaptiveLimitSpecs, all); err != nil {
		return err
	}
	if m.timeouts, err = newFamily(m.meter, timeoutSpecs, all); err != nil {
		return err
	}
	if m.bulkheads, err = newFamily(m.meter, bulkheadSpecs, all); err != nil {
		return err
	}
	if m.rates, err = newFamily(m.meter, rateLimitSpecs, all); err != nil {
		return err
	}
	if m.breakers, err = newFamily(m.meter, breakerSpecs, all); err != nil {
		return err
	}
	if m.retries, err = newFamily(m.meter, retrySpecs, all); err != nil {
		return err
	}
	if m.hedges, err = newFamily(m.meter, hedgeSpecs, all); err != nil {
		return err
	}
	m.fallbacks, err = newFamily(m.meter, fallbackSpecs, all)
	return err
}

// attrsLocked returns the measurement option carrying the attributes of k
// and the base attributes, made once per key. m.mu is held.
func (m *Metrics) attrsLocked(k attrKey) metric.MeasurementOption {
	if opt, ok := m.attrs[k]; ok {
		return opt
	}
	kv := append([]attribute.KeyValue(nil), m.base...)
	kv = append(kv, attribute.String("instance", k.instance))
	if k.kind != "" {
		kv = append(kv, attribute.String("kind", k.kind))
	}
	if k.state != "" {
		kv = append(kv, attribute.String("state", k.state))
	}
	if k.outcome != "" {
		kv = append(kv, attribute.String("outcome", k.outcome))
	}
	opt := metric.WithAttributeSet(attribute.NewSet(kv...))
	m.attrs[k] = opt
	return opt
}

// observe is the callback: it reads reg.Snapshot() and observes every
// instrument. It takes the registry's lock for the snapshot, never a lock
// the calls take.
func (m *Metrics) observe(_ context.Context, o metric.Observer) error {
	snap := m.reg.Snapshot()
	m.counts.Known(snap)
	m.mu.Lock()
	defer m.mu.Unlock()
	attrs := m.attrsLocked

	m.adaptive.observe(o, snap.AdaptiveLimits, attrs)
	m.timeouts.observe(o, snap.Timeouts, attrs)
	m.bulkheads.observe(o, snap.Bulkheads, attrs)
	m.rates.observe(o, snap.RateLimits, attrs)
	m.breakers.observe(o, snap.Breakers, attrs)
	m.retries.observe(o, snap.Retries, attrs)
	m.hedges.observe(o, snap.Hedges, attrs)
	m.fallbacks.observe(o, snap.Fallbacks, attrs)

	for id, s := range snap.Breakers {
		for _, st := range breakerStates {
			var v int64
			if s.State == st {
				v = 1
			}
			o.ObserveInt64(m.stateInst, v, attrs(attrKey{instance: id, state: st.String()}))
		}
	}
	for id, s := range snap.Retries {
		for _, out := range retryOutcomes {
			o.ObserveInt64(m.retryInst, out.value(s), attrs(attrKey{instance: id, outcome: out.name}))
		}
	}
	m.counts.Rejected.Each(func(k eventcount.Key, n uint64) {
		o.ObserveInt64(m.rejectedInst, int64(n), attrs(attrKey{instance: k.Instance, kind: k.Kind}))
	})
	m.counts.Changes.Each(func(k eventcount.Key, n uint64) {
		o.ObserveInt64(m.changesInst, int64(n), attrs(attrKey{instance: k.Instance}))
	})
	eventcount.PolicyOutcomes(snap, func(kind, instance, outcome string, n int64) {
		o.ObserveInt64(m.outcomeInst, n, attrs(attrKey{instance: instance, kind: kind, outcome: outcome}))
	})
	return nil
}

// Close unregisters the callback, unsubscribes from the registry's events
// and removes the call observer: the observable instruments report nothing
// more and the call instruments count nothing more (what they counted stays
// in the SDK). Close is idempotent and
// returns the error of unregistering the callback, the same on every call.
func (m *Metrics) Close() error {
	m.closeOnce.Do(func() {
		m.stop()
		m.stopCalls()
		m.closeErr = m.registration.Unregister()
	})
	return m.closeErr
}
