package r4cotel_test

import (
	"context"
	"fmt"
	"log"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	r4cotel "github.com/resilience4cata/r4c/metrics/otel"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// SpanEvents puts r4c's events on the span of the call that caused them:
// here a rate limiter's rejection lands on the request's span.
func ExampleSpanEvents() {
	reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	if err != nil {
		log.Fatal(err)
	}
	stop := reg.Events().SubscribeContext(r4cotel.SpanEvents())
	defer stop()
	p, err := pipeline.NewBuilder[string](reg, "quotes").
		RateLimit(func(c *ratelimit.Config) { c.Limit, c.Burst = 1, 1 }).Build()
	if err != nil {
		log.Fatal(err)
	}

	recorder := tracetest.NewSpanRecorder() // in production: a batch span processor and an exporter
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	defer tp.Shutdown(context.Background())
	ctx, span := tp.Tracer("shop").Start(context.Background(), "GET /quote")
	call := func(context.Context) (string, error) { return "42", nil }
	_, _ = p.ExecuteContext(ctx, call) // takes the only permit
	_, err = p.ExecuteContext(ctx, call)
	span.End()

	fmt.Println("error:", err)
	for _, e := range recorder.Ended()[0].Events() {
		fmt.Println("span event:", e.Name)
	}
	// Output:
	// error: r4c: rate limited: 1 per 1s (ratelimit quotes)
	// span event: r4c.call_rejected
}
