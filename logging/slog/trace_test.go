package r4cslog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	r4cslog "github.com/resilience4cata/r4c/logging/slog"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

type traceKey struct{}

// fakeIDs reads ids a test put in ctx, as r4cotel.TraceIDs reads a span's.
func fakeIDs(ctx context.Context) (string, string) {
	if v, ok := ctx.Value(traceKey{}).([2]string); ok {
		return v[0], v[1]
	}
	return "", ""
}

// ctxHandler records the ctx value each record was handled with.
type ctxHandler struct {
	slog.Handler
	seen *[]any
}

func (h ctxHandler) Handle(ctx context.Context, r slog.Record) error {
	*h.seen = append(*h.seen, ctx.Value(traceKey{}))
	return h.Handler.Handle(ctx, r)
}

func TestContextListenerLogsTheTraceAndTheCallersLine(t *testing.T) {
	reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	require.NoError(t, err)
	p, err := pipeline.NewBuilder[string](reg, "quotes").
		RateLimit(func(c *ratelimit.Config) { c.Limit, c.Burst = 1, 1 }).Build()
	require.NoError(t, err)
	var buf bytes.Buffer
	var seen []any
	h := ctxHandler{slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug, AddSource: true}), &seen}
	stop := reg.Events().SubscribeContext(r4cslog.ContextListener(slog.New(h), r4cslog.WithTrace(fakeIDs)))
	defer stop()

	ctx := context.WithValue(context.Background(), traceKey{}, [2]string{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"})
	_, err = p.ExecuteContext(ctx, func(context.Context) (string, error) { return "ok", nil })
	require.NoError(t, err)
	_, _, line, _ := runtime.Caller(0)
	_, err = p.ExecuteContext(ctx, func(context.Context) (string, error) { return "ok", nil }) // rejected: logged
	require.Error(t, err)

	var rec struct {
		Msg     string `json:"msg"`
		TraceID string `json:"trace_id"`
		SpanID  string `json:"span_id"`
		Source  struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"source"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), buf.String())
	assert.Equal(t, r4cslog.MsgCallRejected, rec.Msg)
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", rec.TraceID)
	assert.Equal(t, "00f067aa0ba902b7", rec.SpanID)
	assert.Equal(t, "trace_test.go", filepath.Base(rec.Source.File), "the source is the caller's, not r4c's")
	assert.Equal(t, line+1, rec.Source.Line)
	assert.Equal(t, []any{[2]string{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"}}, seen, "the handler got the call's ctx")
}

func TestWithTraceWithoutATraceAddsNothing(t *testing.T) {
	var buf bytes.Buffer
	l := r4cslog.ContextListener(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})), r4cslog.WithTrace(fakeIDs), nil)
	l(context.Background(), events.Timeout{Instance: "slow"})
	assert.Equal(t, `level=INFO msg="r4c: timeout" policy=timeout instance=slow timeout=0s`+"\n", buf.String())
}
