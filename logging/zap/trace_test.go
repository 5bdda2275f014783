package r4czap_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	r4czap "github.com/resilience4cata/r4c/logging/zap"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

type traceKey struct{}

func fakeIDs(ctx context.Context) (string, string) {
	if v, ok := ctx.Value(traceKey{}).([2]string); ok {
		return v[0], v[1]
	}
	return "", ""
}

func TestContextListenerLogsTheTraceAtTheCallersLine(t *testing.T) {
	reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	require.NoError(t, err)
	p, err := pipeline.NewBuilder[string](reg, "quotes").
		RateLimit(func(c *ratelimit.Config) { c.Limit, c.Burst = 1, 1 }).Build()
	require.NoError(t, err)
	core, logs := observer.New(zapcore.DebugLevel)
	logger := zap.New(core, zap.AddCaller())
	stop := reg.Events().SubscribeContext(r4czap.ContextListener(logger, r4czap.WithTrace(fakeIDs)))
	defer stop()

	ctx := context.WithValue(context.Background(), traceKey{}, [2]string{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"})
	_, err = p.ExecuteContext(ctx, func(context.Context) (string, error) { return "ok", nil })
	require.NoError(t, err)
	_, _, line, _ := runtime.Caller(0)
	_, err = p.ExecuteContext(ctx, func(context.Context) (string, error) { return "ok", nil }) // rejected: logged
	require.Error(t, err)

	entries := logs.AllUntimed()
	require.Len(t, entries, 1)
	e := entries[0]
	assert.Equal(t, r4czap.MsgCallRejected, e.Message)
	fields := e.ContextMap()
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", fields["trace_id"])
	assert.Equal(t, "00f067aa0ba902b7", fields["span_id"])
	require.True(t, e.Caller.Defined)
	assert.Equal(t, "trace_test.go", filepath.Base(e.Caller.File), "the caller's file, not r4c's")
	assert.Equal(t, line+1, e.Caller.Line)
	assert.Contains(t, e.Caller.Function, "TestContextListenerLogsTheTraceAtTheCallersLine")
}

func TestWithoutAddCallerNoCallerIsComputed(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	l := r4czap.ContextListener(zap.New(core), r4czap.WithTrace(fakeIDs), nil)
	l(context.Background(), nil) // ignored
	reg, err := r4c.NewRegistry()
	require.NoError(t, err)
	stop := reg.Events().SubscribeContext(l)
	defer stop()
	h, err := pipeline.NewBuilder[string](reg, "b").Breaker(nil).Build()
	require.NoError(t, err)
	br, err := reg.Breaker("b")
	require.NoError(t, err)
	br.TransitionToForcedOpen()
	_, err = h.Execute(func() (string, error) { return "", nil })
	require.Error(t, err)
	entries := logs.AllUntimed()
	require.Len(t, entries, 2)
	assert.Equal(t, r4czap.MsgBreakerStateChanged, entries[0].Message)
	assert.False(t, entries[0].Caller.Defined)
	assert.NotContains(t, entries[1].ContextMap(), "trace_id", "no trace in ctx")
}
