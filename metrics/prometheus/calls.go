package r4cprometheus

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/internal/eventcount"
)

// DefaultBuckets returns the upper bounds, in seconds, of the buckets of
// r4c_pipeline_call_duration_seconds unless [WithBuckets] says otherwise:
// from 1ms to 10s.
func DefaultBuckets() []float64 {
	return []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
}

type bucketsOption []float64

func (o bucketsOption) apply(c *Collector) {
	if len(o) > 0 {
		c.buckets = []float64(o)
	}
}

// WithBuckets sets the upper bounds, in seconds and increasing, of the
// buckets of r4c_pipeline_call_duration_seconds (default
// [DefaultBuckets]). An empty list keeps the default; bounds out of order
// make registering the Collector fail.
func WithBuckets(bounds ...float64) Option {
	return bucketsOption(append([]float64(nil), bounds...))
}

type exemplarsOption func(context.Context) (traceID, spanID string)

func (o exemplarsOption) apply(c *Collector) { c.exemplars = o }

// WithExemplars attaches an exemplar to the call metrics of every call
// whose ctx holds a trace: ids reads the trace and span ids from the ctx
// (r4cotel.TraceIDs, in module github.com/resilience4cata/r4c/metrics/otel,
// reads OpenTelemetry's), and the counter and histogram observations of
// that call carry them as the labels trace_id and span_id. Exemplars are
// exposed in the OpenMetrics format (promhttp.HandlerOpts.EnableOpenMetrics).
// A call without a trace costs one call of ids more and allocates nothing;
// a traced call allocates its exemplar's labels.
func WithExemplars(ids func(ctx context.Context) (traceID, spanID string)) Option {
	return exemplarsOption(ids)
}

// calls is the Collector's events.CallObserver: it counts each pipeline's
// calls by outcome and records the latency of the admitted ones.
type calls struct {
	total     *prometheus.CounterVec
	dur       *prometheus.HistogramVec
	cache     eventcount.Cache[eventcount.CallKey, callSeries]
	exemplars func(context.Context) (string, string)
}

// callSeries are the children of one key, looked up once: Inc and Observe
// on them take no lock and allocate nothing. dur is nil for rejections.
type callSeries struct {
	count prometheus.Counter
	dur   prometheus.Observer
}

func newCalls(constLabels prometheus.Labels, buckets []float64, exemplars func(context.Context) (string, string)) *calls {
	if len(buckets) == 0 {
		buckets = DefaultBuckets()
	}
	c := &calls{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name:        "r4c_pipeline_calls_total",
			Help:        "Calls that ended through a pipeline, by outcome (success, failure, timeout, rejected, cancelled) and, for rejected calls, the kind of the policy that rejected them.",
			ConstLabels: constLabels,
		}, []string{"pipeline", "outcome", "rejected_by"}),
		dur: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:        "r4c_pipeline_call_duration_seconds",
			Help:        "Latency of the calls a pipeline admitted (every outcome but rejected), from entry to end, retries and their waits included.",
			Buckets:     buckets,
			ConstLabels: constLabels,
		}, []string{"pipeline", "outcome"}),
	}
	c.cache.New = c.series
	c.exemplars = exemplars
	return c
}

// series makes the children of k, on the first call of its kind.
func (c *calls) series(k eventcount.CallKey) callSeries {
	s := callSeries{count: c.total.WithLabelValues(k.Pipeline, k.Outcome.String(), k.RejectedBy)}
	if k.Outcome != events.OutcomeRejected {
		s.dur = c.dur.WithLabelValues(k.Pipeline, k.Outcome.String())
	}
	return s
}

// ObserveCall counts call and records its latency unless it was rejected.
// It implements events.CallObserver; it allocates nothing once a call of
// the same pipeline and outcome has been seen.
func (c *calls) ObserveCall(ctx context.Context, call events.Call) {
	s := c.cache.Get(eventcount.KeyOf(call))
	if c.exemplars != nil {
		if tid, sid := c.exemplars(ctx); tid != "" {
			ex := prometheus.Labels{"trace_id": tid}
			if sid != "" {
				ex["span_id"] = sid
			}
			s.count.(prometheus.ExemplarAdder).AddWithExemplar(1, ex)
			if s.dur != nil {
				s.dur.(prometheus.ExemplarObserver).ObserveWithExemplar(call.Latency.Seconds(), ex)
			}
			return
		}
	}
	s.count.Inc()
	if s.dur != nil {
		s.dur.Observe(call.Latency.Seconds())
	}
}
