package r4cotel_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/resilience4cata/r4c/events"
	r4cotel "github.com/resilience4cata/r4c/metrics/otel"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
)

// wantScenario is every data point after pipelines.run: see run for where
// each figure comes from.
const wantScenario = `# r4c.calls.rejected {call} sum
r4c.calls.rejected{instance=orders,kind=bulkhead} 1
r4c.calls.rejected{instance=payments,kind=breaker} 1
r4c.calls.rejected{instance=quotes,kind=ratelimit} 1
r4c.calls.rejected{instance=search,kind=adaptivelimit} 1
# r4c.adaptivelimit.limit.changes {change} sum
r4c.adaptivelimit.limit.changes{instance=search} 1
# r4c.breaker.state {state} gauge
r4c.breaker.state{instance=payments,state=closed} 0
r4c.breaker.state{instance=payments,state=disabled} 0
r4c.breaker.state{instance=payments,state=forced-open} 0
r4c.breaker.state{instance=payments,state=half-open} 0
r4c.breaker.state{instance=payments,state=open} 1
# r4c.retry.calls {call} sum
r4c.retry.calls{instance=flaky,outcome=budget_rejected} 0
r4c.retry.calls{instance=flaky,outcome=cancelled} 0
r4c.retry.calls{instance=flaky,outcome=exhausted} 1
r4c.retry.calls{instance=flaky,outcome=failure_with_retry} 0
r4c.retry.calls{instance=flaky,outcome=failure_without_retry} 0
r4c.retry.calls{instance=flaky,outcome=success_with_retry} 0
r4c.retry.calls{instance=flaky,outcome=success_without_retry} 0
# r4c.policy.calls {call} sum
r4c.policy.calls{instance=flaky,kind=fallback,outcome=fallback} 1
r4c.policy.calls{instance=flaky,kind=retry,outcome=retried} 1
r4c.policy.calls{instance=hedged,kind=hedge,outcome=hedged} 1
r4c.policy.calls{instance=orders,kind=bulkhead,outcome=rejected} 1
r4c.policy.calls{instance=payments,kind=breaker,outcome=failure} 2
r4c.policy.calls{instance=payments,kind=breaker,outcome=ignored} 0
r4c.policy.calls{instance=payments,kind=breaker,outcome=rejected} 1
r4c.policy.calls{instance=quotes,kind=ratelimit,outcome=rejected} 1
r4c.policy.calls{instance=search,kind=adaptivelimit,outcome=dropped} 0
r4c.policy.calls{instance=search,kind=adaptivelimit,outcome=ignored} 0
r4c.policy.calls{instance=search,kind=adaptivelimit,outcome=rejected} 1
r4c.policy.calls{instance=slow,kind=timeout,outcome=timed_out} 1
# r4c.adaptivelimit.limit {call} gauge
r4c.adaptivelimit.limit{instance=search} 2
# r4c.adaptivelimit.concurrent.calls {call} gauge
r4c.adaptivelimit.concurrent.calls{instance=search} 0
# r4c.adaptivelimit.waiting.calls {call} gauge
r4c.adaptivelimit.waiting.calls{instance=search} 0
# r4c.adaptivelimit.estimated.limit {call} gauge
r4c.adaptivelimit.estimated.limit{instance=search} 2
# r4c.adaptivelimit.min.limit {call} gauge
r4c.adaptivelimit.min.limit{instance=search} 1
# r4c.adaptivelimit.max.limit {call} gauge
r4c.adaptivelimit.max.limit{instance=search} 10
# r4c.adaptivelimit.window.latency s gauge
r4c.adaptivelimit.window.latency{instance=search} 1
# r4c.adaptivelimit.window.max.concurrent.calls {call} gauge
r4c.adaptivelimit.window.max.concurrent.calls{instance=search} 1
# r4c.adaptivelimit.windows {window} sum
r4c.adaptivelimit.windows{instance=search} 1
# r4c.adaptivelimit.drops {call} sum
r4c.adaptivelimit.drops{instance=search} 0
# r4c.timeout.duration s gauge
r4c.timeout.duration{instance=slow} 1
# r4c.timeout.timeouts {call} sum
r4c.timeout.timeouts{instance=slow} 1
# r4c.bulkhead.concurrent.calls {call} gauge
r4c.bulkhead.concurrent.calls{instance=orders} 0
# r4c.bulkhead.max.concurrent.calls {call} gauge
r4c.bulkhead.max.concurrent.calls{instance=orders} 1
# r4c.bulkhead.waiting.calls {call} gauge
r4c.bulkhead.waiting.calls{instance=orders} 0
# r4c.ratelimit.available.permits {permit} gauge
r4c.ratelimit.available.permits{instance=quotes} 1
# r4c.ratelimit.burst.permits {permit} gauge
r4c.ratelimit.burst.permits{instance=quotes} 1
# r4c.breaker.buffered.calls {call} gauge
r4c.breaker.buffered.calls{instance=payments} 0
# r4c.breaker.calls {call} sum
r4c.breaker.calls{instance=payments} 2
# r4c.retry.retries {attempt} sum
r4c.retry.retries{instance=flaky} 1
# r4c.hedge.calls {call} sum
r4c.hedge.calls{instance=hedged} 1
# r4c.hedge.started {attempt} sum
r4c.hedge.started{instance=hedged} 1
# r4c.hedge.wins {call} sum
r4c.hedge.wins{instance=hedged} 1
# r4c.hedge.rejection.stops {call} sum
r4c.hedge.rejection.stops{instance=hedged} 0
# r4c.fallback.calls {call} sum
r4c.fallback.calls{instance=flaky} 1
# r4c.fallback.handled {call} sum
r4c.fallback.handled{instance=flaky} 1
# r4c.fallback.func.failures {call} sum
r4c.fallback.func.failures{instance=flaky} 0
# r4c.pipeline.calls {call} sum
r4c.pipeline.calls{outcome=failure,pipeline=payments} 2
r4c.pipeline.calls{outcome=rejected,pipeline=orders,rejected_by=bulkhead} 1
r4c.pipeline.calls{outcome=rejected,pipeline=payments,rejected_by=breaker} 1
r4c.pipeline.calls{outcome=rejected,pipeline=quotes,rejected_by=ratelimit} 1
r4c.pipeline.calls{outcome=rejected,pipeline=search,rejected_by=adaptivelimit} 1
r4c.pipeline.calls{outcome=success,pipeline=flaky} 1
r4c.pipeline.calls{outcome=success,pipeline=hedged} 1
r4c.pipeline.calls{outcome=success,pipeline=orders} 1
r4c.pipeline.calls{outcome=success,pipeline=quotes} 1
r4c.pipeline.calls{outcome=success,pipeline=search} 1
r4c.pipeline.calls{outcome=timeout,pipeline=slow} 1
# r4c.pipeline.call.duration s histogram
r4c.pipeline.call.duration{outcome=failure,pipeline=payments} count=2 sum=0 bounds=[0.1 1] counts=[2 0 0]
r4c.pipeline.call.duration{outcome=success,pipeline=flaky} count=1 sum=0.1 bounds=[0.1 1] counts=[1 0 0]
r4c.pipeline.call.duration{outcome=success,pipeline=hedged} count=1 sum=0.1 bounds=[0.1 1] counts=[1 0 0]
r4c.pipeline.call.duration{outcome=success,pipeline=orders} count=1 sum=0 bounds=[0.1 1] counts=[1 0 0]
r4c.pipeline.call.duration{outcome=success,pipeline=quotes} count=1 sum=0 bounds=[0.1 1] counts=[1 0 0]
r4c.pipeline.call.duration{outcome=success,pipeline=search} count=1 sum=1 bounds=[0.1 1] counts=[0 1 0]
r4c.pipeline.call.duration{outcome=timeout,pipeline=slow} count=1 sum=1 bounds=[0.1 1] counts=[0 1 0]
`

func TestScenarioObservesEveryPolicy(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	mr, m := newMetrics(t, reg, r4cotel.WithBuckets(0.1, 1))
	defer m.Close()
	p.Run(t)
	got := strings.Join(collect(t, mr), "\n") + "\n"
	if os.Getenv("R4C_PRINT_SCENARIO") != "" {
		require.NoError(t, os.WriteFile(os.Getenv("R4C_PRINT_SCENARIO"), []byte(got), 0o644))
	}
	assert.Equal(t, wantScenario, got)
}

func TestEventCountersStartAtZero(t *testing.T) {
	clk, reg := newRegistry(t)
	build(t, clk, reg)
	mr, m := newMetrics(t, reg)
	defer m.Close()
	assert.Equal(t, []string{
		"# r4c.calls.rejected {call} sum",
		"r4c.calls.rejected{instance=orders,kind=bulkhead} 0",
		"r4c.calls.rejected{instance=payments,kind=breaker} 0",
		"r4c.calls.rejected{instance=quotes,kind=ratelimit} 0",
		"r4c.calls.rejected{instance=search,kind=adaptivelimit} 0",
		"# r4c.adaptivelimit.limit.changes {change} sum",
		"r4c.adaptivelimit.limit.changes{instance=search} 0",
	}, collect(t, mr, "r4c.calls.rejected", "r4c.adaptivelimit.limit.changes"))
}

func TestInstancesBuiltLaterAppearAtTheNextCollection(t *testing.T) {
	_, reg := newRegistry(t)
	mr, m := newMetrics(t, reg)
	defer m.Close()
	assert.Empty(t, collect(t, mr), "an empty registry reports nothing")

	p, err := pipeline.NewBuilder[string](reg, "late").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 7 }).Build()
	require.NoError(t, err)
	_, err = p.Execute(ok)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"# r4c.calls.rejected {call} sum",
		"r4c.calls.rejected{instance=late,kind=adaptivelimit} 0",
		"# r4c.adaptivelimit.limit {call} gauge",
		"r4c.adaptivelimit.limit{instance=late} 7",
	}, collect(t, mr, "r4c.adaptivelimit.limit", "r4c.calls.rejected"))
}

// optional builds the instances whose optional figures are present: a
// Gradient2 and a Vegas limit, a retry with a budget and a breaker with
// enough calls to judge on (one failure in four).
func optional(t *testing.T, build func(name string) *pipeline.Builder[string]) {
	t.Helper()
	for name, alg := range map[string]adaptivelimit.Algorithm{"g": adaptivelimit.Gradient2, "a": adaptivelimit.AIMD, "v": adaptivelimit.Vegas} {
		_, err := build(name).AdaptiveLimit(func(c *adaptivelimit.Config) { c.Algorithm = alg }).Build()
		require.NoError(t, err)
	}
	_, err := build("budget").Retry(func(c *retry.Config) { c.BudgetRatio = 0.5; c.BudgetMinRetries = 3 }).Build()
	require.NoError(t, err)
	br, err := build("br").Breaker(func(c *breaker.Config) { c.MinimumCalls, c.WindowSize = 4, 4 }).Build()
	require.NoError(t, err)
	_, err = br.Execute(func() (string, error) { return "", errBackend })
	require.Error(t, err)
	for range 3 {
		_, err = br.Execute(ok)
		require.NoError(t, err)
	}
	_, err = build("shared").RateLimit(func(c *ratelimit.Config) { c.Store = grantingStore{} }).Build()
	require.NoError(t, err)
}

// grantingStore is a rate limiter's store that grants every permit: with
// it the store's figures are present.
type grantingStore struct{}

func (grantingStore) Reserve(context.Context, string, ratelimit.StoreRequest) (ratelimit.Reservation, error) {
	return ratelimit.Reservation{Permits: 1}, nil
}

func (grantingStore) Release(context.Context, string, ratelimit.StoreRequest, int) error { return nil }

func TestOptionalFigures(t *testing.T) {
	_, reg := newRegistry(t)
	_, err := pipeline.NewBuilder[string](reg, "plain").Retry(func(c *retry.Config) {}).Build()
	require.NoError(t, err)
	optional(t, func(name string) *pipeline.Builder[string] { return pipeline.NewBuilder[string](reg, name) })
	mr, m := newMetrics(t, reg)
	defer m.Close()
	assert.Equal(t, []string{
		"# r4c.adaptivelimit.long.latency s gauge",
		"r4c.adaptivelimit.long.latency{instance=g} 0",
		"# r4c.adaptivelimit.noload.latency s gauge",
		"r4c.adaptivelimit.noload.latency{instance=v} 0",
		"# r4c.ratelimit.store.fallback 1 gauge",
		"r4c.ratelimit.store.fallback{instance=shared} 0",
		"# r4c.ratelimit.store.failures {call} sum",
		"r4c.ratelimit.store.failures{instance=shared} 0",
		"# r4c.breaker.failure.ratio 1 gauge",
		"r4c.breaker.failure.ratio{instance=br} 0.25",
		"# r4c.breaker.slow.call.ratio 1 gauge",
		"r4c.breaker.slow.call.ratio{instance=br} 0",
		"# r4c.retry.budget.available {attempt} gauge",
		"r4c.retry.budget.available{instance=budget} 3",
	}, collect(t, mr, "r4c.adaptivelimit.long.latency", "r4c.adaptivelimit.noload.latency",
		"r4c.breaker.failure.ratio", "r4c.breaker.slow.call.ratio", "r4c.retry.budget.available",
		"r4c.ratelimit.store.fallback", "r4c.ratelimit.store.failures"))
}

// TestDocListsEveryInstrument checks the table of doc.go against the
// instruments reported when every optional figure is present.
func TestDocListsEveryInstrument(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	optional(t, func(name string) *pipeline.Builder[string] { return pipeline.NewBuilder[string](reg, name) })
	mr, m := newMetrics(t, reg)
	defer m.Close()
	p.Run(t)
	var got []string
	for _, l := range collect(t, mr) {
		if name, ok := strings.CutPrefix(l, "# "); ok {
			got = append(got, name)
		}
	}
	f, err := os.Open("doc.go")
	require.NoError(t, err)
	defer f.Close()
	var doc []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "//\tr4c.")
		if !ok {
			continue
		}
		fields := strings.Fields("r4c." + line)
		name, _, _ := strings.Cut(fields[0], "{")
		// doc: name{attrs} type unit; got: name unit type
		typ := map[string]string{"gauge": "gauge", "counter": "sum", "histogram": "histogram"}[fields[1]]
		doc = append(doc, name+" "+fields[2]+" "+typ)
	}
	require.NoError(t, sc.Err())
	slices.Sort(got)
	slices.Sort(doc)
	assert.Equal(t, doc, got)
}

func TestCloseStopsReporting(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	mr, m := newMetrics(t, reg)
	require.True(t, reg.Events().Active(), "the instruments listen")
	require.NotEmpty(t, collect(t, mr))

	release := holdSlot(t, p.Orders)
	_, err := p.Orders.Execute(ok)
	require.Error(t, err)
	require.NoError(t, m.Close())
	require.NoError(t, m.Close(), "idempotent")
	assert.False(t, reg.Events().Active(), "Close removed the listener")
	release()
	// The synchronous call instruments keep what they counted before Close
	// (the SDK owns that state) and count nothing after it.
	before := collect(t, mr)
	assert.Equal(t, []string{
		"# r4c.pipeline.calls {call} sum",
		"r4c.pipeline.calls{outcome=rejected,pipeline=orders,rejected_by=bulkhead} 1",
	}, before, "Close unregistered the callback")
	_, err = p.Orders.Execute(ok)
	require.NoError(t, err)
	assert.Equal(t, before, collect(t, mr), "Close stopped the call observer")
}

func TestWithAttributes(t *testing.T) {
	clk, reg := newRegistry(t)
	build(t, clk, reg)
	mr, m := newMetrics(t, reg, r4cotel.WithAttributes(attribute.String("registry", "payments")))
	defer m.Close()
	assert.Equal(t, []string{
		"# r4c.breaker.state {state} gauge",
		"r4c.breaker.state{instance=payments,registry=payments,state=closed} 1",
		"r4c.breaker.state{instance=payments,registry=payments,state=disabled} 0",
		"r4c.breaker.state{instance=payments,registry=payments,state=forced-open} 0",
		"r4c.breaker.state{instance=payments,registry=payments,state=half-open} 0",
		"r4c.breaker.state{instance=payments,registry=payments,state=open} 0",
		"# r4c.bulkhead.max.concurrent.calls {call} gauge",
		"r4c.bulkhead.max.concurrent.calls{instance=orders,registry=payments} 1",
	}, collect(t, mr, "r4c.bulkhead.max.concurrent.calls", "r4c.breaker.state"))
}

func TestRegisterWithoutARegistry(t *testing.T) {
	m, err := r4cotel.Register(nil)
	assert.Nil(t, m)
	assert.ErrorIs(t, err, r4cotel.ErrNilRegistry)
}

func TestTheGlobalProviderIsTheDefault(t *testing.T) {
	_, reg := newRegistry(t)
	m, err := r4cotel.Register(reg) // the global no-op provider: nothing to read, nothing fails
	require.NoError(t, err)
	require.NoError(t, m.Close())
}

func TestOtherEventsAreNotCounted(t *testing.T) {
	_, reg := newRegistry(t)
	mr, m := newMetrics(t, reg)
	defer m.Close()
	reg.Events().Publish(events.Timeout{Instance: "t"})
	reg.Events().Publish(events.BreakerStateChanged{Instance: "b", From: "closed", To: "open"})
	reg.Events().Publish(events.CallRejected{Policy: "custom", Instance: "mine"})
	reg.Events().Publish(events.LimitChanged{Instance: "standalone", OldLimit: 1, NewLimit: 2})
	assert.Equal(t, []string{
		"# r4c.calls.rejected {call} sum",
		"r4c.calls.rejected{instance=mine,kind=custom} 1",
		"# r4c.adaptivelimit.limit.changes {change} sum",
		"r4c.adaptivelimit.limit.changes{instance=standalone} 1",
	}, collect(t, mr))
}

func TestConcurrentEventsAndCollections(t *testing.T) {
	_, reg := newRegistry(t)
	mr, m := newMetrics(t, reg)
	defer m.Close()
	const publishers, each = 4, 500
	names := []string{"i0", "i1", "i2", "i3", "i4"}
	var wg sync.WaitGroup
	for g := range publishers {
		wg.Go(func() {
			for i := range each {
				reg.Events().Publish(events.CallRejected{Policy: "bulkhead", Instance: names[(g+i)%len(names)]})
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			var rm metricdata.ResourceMetrics
			assert.NoError(t, mr.Collect(context.Background(), &rm)) // not require: this is not the test's goroutine
		}
	})
	wg.Wait()
	want := []string{"# r4c.calls.rejected {call} sum"}
	for _, n := range names {
		want = append(want, "r4c.calls.rejected{instance="+n+",kind=bulkhead} 400")
	}
	assert.Equal(t, want, collect(t, mr))
}

var errMeter = errors.New("meter failed")

// failingMeter is a no-op meter whose instrument creation (gauges) or
// callback registration fails.
type failingMeter struct {
	noop.Meter
	failGauge bool
}

func (m failingMeter) Int64ObservableGauge(name string, opts ...metric.Int64ObservableGaugeOption) (metric.Int64ObservableGauge, error) {
	if m.failGauge {
		return nil, errMeter
	}
	return m.Meter.Int64ObservableGauge(name, opts...)
}

func (m failingMeter) RegisterCallback(metric.Callback, ...metric.Observable) (metric.Registration, error) {
	return nil, errMeter
}

type failingProvider struct {
	noop.MeterProvider
	failGauge bool
}

func (p failingProvider) Meter(string, ...metric.MeterOption) metric.Meter {
	return failingMeter{failGauge: p.failGauge}
}

func TestAFailingMeterLeavesNothingBehind(t *testing.T) {
	for _, failGauge := range []bool{true, false} {
		_, reg := newRegistry(t)
		m, err := r4cotel.Register(reg, r4cotel.WithMeterProvider(failingProvider{failGauge: failGauge}))
		assert.Nil(t, m)
		assert.ErrorIs(t, err, errMeter)
		assert.False(t, reg.Events().Active(), "not subscribed")
	}
}
