package r4cotel_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/metrics/internal/scenario"
	r4cotel "github.com/resilience4cata/r4c/metrics/otel"
)

// traced runs fn inside a span of a recording tracer and returns the span
// as recorded.
func traced(t *testing.T, fn func(ctx context.Context)) sdktrace.ReadOnlySpan {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, span := tp.Tracer("test").Start(context.Background(), "call")
	fn(ctx)
	span.End()
	spans := rec.Ended()
	require.Len(t, spans, 1)
	return spans[0]
}

// spanEvents returns "name k=v k=v" for each event of s, attributes sorted.
func spanEvents(s sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, e := range s.Events() {
		out = append(out, e.Name+" "+attrString(attribute.NewSet(e.Attributes...)))
	}
	return out
}

func TestSpanEventsOfTheScenario(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	stop := reg.Events().SubscribeContext(r4cotel.SpanEvents())
	defer stop()

	span := traced(t, func(ctx context.Context) {
		// search: a call holds the only slot, a second is rejected, the
		// first ends the window and the limit goes from 1 to 2.
		release := holdSlotCtx(t, ctx, p)
		_, err := p.Search.ExecuteContext(ctx, func(context.Context) (string, error) { return "", nil })
		require.Error(t, err)
		clk.Advance(time.Second)
		release()
		// flaky: a retry, then the fallback.
		_, err = scenario.AdvanceDuring(t, clk, 1, nil, 100*time.Millisecond, func() (string, error) {
			return p.Flaky.ExecuteContext(ctx, func(context.Context) (string, error) { return "", errBackend })
		})
		require.NoError(t, err)
		// slow: a timeout.
		_, err = scenario.AdvanceDuring(t, clk, 1, nil, time.Second, func() (string, error) {
			return p.Slow.ExecuteContext(ctx, func(ctx context.Context) (string, error) { <-ctx.Done(); return "", ctx.Err() })
		})
		require.Error(t, err)
	})
	assert.Equal(t, []string{
		"r4c.call_rejected error.type=*adaptivelimit.LimitExceededError,r4c.error=r4c: adaptive limit search exceeded,r4c.instance=search,r4c.policy=adaptivelimit",
		"r4c.limit_changed r4c.instance=search,r4c.limit.new=2,r4c.limit.old=1,r4c.policy=adaptivelimit,r4c.window.dropped=false,r4c.window.latency=1",
		"r4c.retry error.type=*errors.errorString,r4c.attempt=2,r4c.error=backend failed,r4c.instance=flaky,r4c.policy=retry,r4c.retry.wait=0.1",
		"r4c.fallback error.type=*retry.ExhaustedError,r4c.error=r4c: retry flaky gave up after 2 attempts: backend failed,r4c.instance=flaky,r4c.policy=fallback",
		"r4c.timeout r4c.instance=slow,r4c.policy=timeout,r4c.timeout=1",
	}, spanEvents(span))
}

// holdSlotCtx starts a search call with ctx that holds the limit's only
// slot until release is called.
func holdSlotCtx(t *testing.T, ctx context.Context, p *scenario.Pipelines) (release func()) {
	t.Helper()
	entered, rel, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		_, err := p.Search.ExecuteContext(ctx, func(context.Context) (string, error) { close(entered); <-rel; return "ok", nil })
		assert.NoError(t, err)
	}()
	<-entered
	return func() { close(rel); <-done }
}

func TestSpanEventsWithoutARecordingSpanDoNothing(t *testing.T) {
	listen := r4cotel.SpanEvents()
	assert.NotPanics(t, func() {
		listen(context.Background(), events.Timeout{Instance: "x", Timeout: time.Second})
		listen(context.Background(), nil)
	})
}

func TestSpanEventsOfOtherEvents(t *testing.T) {
	span := traced(t, func(ctx context.Context) {
		listen := r4cotel.SpanEvents()
		listen(ctx, events.HedgeStarted{Instance: "h", Attempt: 2})
		listen(ctx, events.BreakerStateChanged{Instance: "b", From: "closed", To: "open"})
		listen(ctx, events.CallRejected{Policy: "bulkhead", Instance: "o", Err: errors.New("full")})
		listen(ctx, custom{})
	})
	assert.Equal(t, []string{
		"r4c.hedge r4c.attempt=2,r4c.instance=h,r4c.policy=hedge",
		"r4c.breaker_state_changed r4c.breaker.from=closed,r4c.breaker.to=open,r4c.instance=b,r4c.policy=breaker",
		"r4c.call_rejected error.type=*errors.errorString,r4c.error=full,r4c.instance=o,r4c.policy=bulkhead",
		"r4c.event r4c.event=unknown,r4c.instance=c,r4c.policy=custom",
	}, spanEvents(span))
}

type custom struct{}

func (custom) Kind() events.Kind        { return 0 }
func (custom) Source() (string, string) { return "custom", "c" }

func TestTraceIDs(t *testing.T) {
	tr, sp := r4cotel.TraceIDs(context.Background())
	assert.Empty(t, tr)
	assert.Empty(t, sp)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("test").Start(context.Background(), "call")
	defer span.End()
	tr, sp = r4cotel.TraceIDs(ctx)
	assert.Equal(t, span.SpanContext().TraceID().String(), tr)
	assert.Equal(t, span.SpanContext().SpanID().String(), sp)
	assert.Len(t, tr, 32)
	assert.Len(t, sp, 16)
}
