package r4cotel

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/resilience4cata/r4c/events"
)

// The names of the span events [SpanEvents] adds.
const (
	SpanEventLimitChanged = "r4c.limit_changed"
	SpanEventCallRejected = "r4c.call_rejected"
	SpanEventBreaker      = "r4c.breaker_state_changed"
	SpanEventRetry        = "r4c.retry"
	SpanEventTimeout      = "r4c.timeout"
	SpanEventHedge        = "r4c.hedge"
	SpanEventFallback     = "r4c.fallback"
	SpanEventOther        = "r4c.event"
)

// SpanEvents returns a listener that adds each event to the span of the
// call that caused it, the span in the ctx the bus passes beside the event:
//
//	stop := reg.Events().SubscribeContext(r4cotel.SpanEvents())
//	defer stop()
//
// Every span event carries r4c.policy and r4c.instance, and the figures of
// its event: r4c.limit.old and r4c.limit.new and r4c.window.latency
// (seconds) for a limit change; error.type and r4c.error for a rejection, a
// retry and a fallback; r4c.attempt for a retry and a hedge; r4c.retry.wait
// (seconds); r4c.timeout (seconds); r4c.breaker.from and r4c.breaker.to.
//
// An event whose ctx holds no recording span (no tracing, an unsampled
// trace, or an event no call caused) costs one lookup and allocates
// nothing. The listener runs on the publishing goroutine, as the bus runs
// every listener; adding a span event is quick and never blocks.
func SpanEvents() func(context.Context, events.Event) {
	return addSpanEvent
}

func addSpanEvent(ctx context.Context, e events.Event) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() || e == nil {
		return
	}
	policy, instance := e.Source()
	base := []attribute.KeyValue{attribute.String("r4c.policy", policy), attribute.String("r4c.instance", instance)}
	name := SpanEventOther
	switch e := e.(type) {
	case events.LimitChanged:
		name = SpanEventLimitChanged
		base = append(base,
			attribute.Int("r4c.limit.old", e.OldLimit),
			attribute.Int("r4c.limit.new", e.NewLimit),
			attribute.Float64("r4c.window.latency", e.WindowLatency.Seconds()),
			attribute.Bool("r4c.window.dropped", e.Dropped))
	case events.CallRejected:
		name = SpanEventCallRejected
		base = appendErr(base, e.Err)
	case events.BreakerStateChanged:
		name = SpanEventBreaker
		base = append(base, attribute.String("r4c.breaker.from", e.From), attribute.String("r4c.breaker.to", e.To))
	case events.RetryAttempt:
		name = SpanEventRetry
		base = append(base, attribute.Int("r4c.attempt", e.Attempt), attribute.Float64("r4c.retry.wait", e.Wait.Seconds()))
		base = appendErr(base, e.Err)
	case events.Timeout:
		name = SpanEventTimeout
		base = append(base, attribute.Float64("r4c.timeout", e.Timeout.Seconds()))
	case events.HedgeStarted:
		name = SpanEventHedge
		base = append(base, attribute.Int("r4c.attempt", e.Attempt))
	case events.FallbackUsed:
		name = SpanEventFallback
		base = appendErr(base, e.Err)
	default:
		base = append(base, attribute.String("r4c.event", e.Kind().String()))
	}
	span.AddEvent(name, trace.WithAttributes(base...))
}

// appendErr adds error.type (the error's Go type, as the OpenTelemetry
// conventions name the class of an error) and r4c.error (its message).
func appendErr(kv []attribute.KeyValue, err error) []attribute.KeyValue {
	if err == nil {
		return kv
	}
	return append(kv, attribute.String("error.type", errorType(err)), attribute.String("r4c.error", err.Error()))
}

// TraceIDs returns the trace and span ids (hex) of the span context in ctx,
// or two empty strings when ctx holds no valid one. Pass it to the log
// listeners' WithTrace option (r4cslog.WithTrace, r4czap.WithTrace) so that
// their records carry trace_id and span_id.
func TraceIDs(ctx context.Context) (traceID, spanID string) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return "", ""
	}
	return sc.TraceID().String(), sc.SpanID().String()
}

// errorType returns the Go type of err, such as "*adaptivelimit.LimitExceededError".
func errorType(err error) string { return fmt.Sprintf("%T", err) }
