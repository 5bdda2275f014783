package r4cotel

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/internal/eventcount"
)

// DefaultBuckets returns the explicit bucket boundaries, in seconds, that
// r4c.pipeline.call.duration advises unless [WithBuckets] says otherwise:
// from 1ms to 10s. (A view of the SDK may still replace them.)
func DefaultBuckets() []float64 {
	return []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
}

// WithBuckets sets the explicit bucket boundaries, in seconds and
// increasing, that r4c.pipeline.call.duration advises (default
// [DefaultBuckets]). An empty list keeps the default.
func WithBuckets(bounds ...float64) Option {
	bounds = append([]float64(nil), bounds...)
	return optionFunc(func(m *Metrics) {
		if len(bounds) > 0 {
			m.buckets = bounds
		}
	})
}

// calls is the events.CallObserver of a [Metrics]: it counts each
// pipeline's calls by outcome and records the latency of the admitted ones
// on synchronous instruments, with attribute sets made once per series.
type calls struct {
	total metric.Int64Counter
	dur   metric.Float64Histogram
	base  []attribute.KeyValue
	cache eventcount.Cache[eventcount.CallKey, *callSeries]
}

// callSeries holds the options of one series, made once so that recording
// passes an existing slice and allocates nothing.
type callSeries struct {
	add    []metric.AddOption
	record []metric.RecordOption // nil for rejections
}

func newCalls(meter metric.Meter, base []attribute.KeyValue, buckets []float64) (*calls, error) {
	if len(buckets) == 0 {
		buckets = DefaultBuckets()
	}
	total, err := meter.Int64Counter("r4c.pipeline.calls",
		metric.WithDescription("Calls that ended through a pipeline, by outcome (success, failure, timeout, rejected, cancelled) and, for rejected calls, the kind of the policy that rejected them."),
		metric.WithUnit("{call}"))
	if err != nil {
		return nil, err
	}
	dur, err := meter.Float64Histogram("r4c.pipeline.call.duration",
		metric.WithDescription("Latency of the calls a pipeline admitted (every outcome but rejected), from entry to end, retries and their waits included."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(buckets...))
	if err != nil {
		return nil, err
	}
	c := &calls{total: total, dur: dur, base: base}
	c.cache.New = c.series
	return c, nil
}

func (c *calls) series(k eventcount.CallKey) *callSeries {
	kv := append([]attribute.KeyValue(nil), c.base...)
	kv = append(kv, attribute.String("pipeline", k.Pipeline), attribute.String("outcome", k.Outcome.String()))
	if k.RejectedBy != "" {
		kv = append(kv, attribute.String("rejected_by", k.RejectedBy))
	}
	set := attribute.NewSet(kv...)
	s := &callSeries{add: []metric.AddOption{metric.WithAttributeSet(set)}}
	if k.Outcome != events.OutcomeRejected {
		s.record = []metric.RecordOption{metric.WithAttributeSet(set)}
	}
	return s
}

// ObserveCall implements events.CallObserver. ctx reaches the instruments,
// so a sampled span in it can become an exemplar.
func (c *calls) ObserveCall(ctx context.Context, call events.Call) {
	s := c.cache.Get(eventcount.KeyOf(call))
	c.total.Add(ctx, 1, s.add...)
	if s.record != nil {
		c.dur.Record(ctx, call.Latency.Seconds(), s.record...)
	}
}
