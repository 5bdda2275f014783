package r4cslog_test

import (
	"context"
	"log"
	"log/slog"
	"os"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	r4cslog "github.com/resilience4cata/r4c/logging/slog"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

type traceIDs struct{}

// ids stands for r4cotel.TraceIDs (module metrics/otel), which reads the
// ids of the OpenTelemetry span in ctx.
func ids(ctx context.Context) (traceID, spanID string) {
	v, _ := ctx.Value(traceIDs{}).([2]string)
	return v[0], v[1]
}

// ContextListener logs each event with the trace of the call that caused
// it.
func ExampleContextListener() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: withoutTime}))
	reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	if err != nil {
		log.Fatal(err)
	}
	stop := reg.Events().SubscribeContext(r4cslog.ContextListener(logger, r4cslog.WithTrace(ids)))
	defer stop()
	p, err := pipeline.NewBuilder[string](reg, "quotes").
		RateLimit(func(c *ratelimit.Config) { c.Limit, c.Burst = 1, 1 }).Build()
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.WithValue(context.Background(), traceIDs{}, [2]string{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"})
	call := func(context.Context) (string, error) { return "42", nil }
	_, _ = p.ExecuteContext(ctx, call) // takes the only permit
	_, _ = p.ExecuteContext(ctx, call) // rejected and logged
	// Output:
	// level=DEBUG msg="r4c: call rejected" policy=ratelimit instance=quotes error="r4c: rate limited: 1 per 1s (ratelimit quotes)" trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7
}
