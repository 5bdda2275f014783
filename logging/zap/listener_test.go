package r4czap_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	r4czap "github.com/resilience4cata/r4c/logging/zap"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/bulkhead"
)

var errBackend = errors.New("backend failed")

// otherEvent is an event type of another package.
type otherEvent struct{}

func (otherEvent) Kind() events.Kind        { return events.Kind(99) }
func (otherEvent) Source() (string, string) { return "custom", "mine" }

// entry is what a test expects of a logged entry.
type entry struct {
	level  zapcore.Level
	msg    string
	fields map[string]any
}

func entries(logs *observer.ObservedLogs) []entry {
	var out []entry
	for _, e := range logs.AllUntimed() {
		out = append(out, entry{e.Level, e.Message, e.ContextMap()})
	}
	return out
}

func TestEveryEventAtItsLevel(t *testing.T) {
	tests := []struct {
		name string
		e    events.Event
		want entry
	}{
		{"limit changed", events.LimitChanged{Instance: "search", OldLimit: 20, NewLimit: 18,
			WindowLatency: 120 * time.Millisecond, LongLatency: 80 * time.Millisecond, MaxInFlight: 19, Dropped: true, Samples: 42},
			entry{zapcore.InfoLevel, "r4c: limit changed", map[string]any{"policy": "adaptivelimit", "instance": "search",
				"old_limit": int64(20), "new_limit": int64(18), "window_latency": 120 * time.Millisecond,
				"long_latency": 80 * time.Millisecond, "max_in_flight": int64(19), "dropped": true, "samples": int64(42)}}},
		{"limit changed without a long-term latency", events.LimitChanged{Instance: "aimd", OldLimit: 10, NewLimit: 9,
			WindowLatency: time.Second, MaxInFlight: 10, Dropped: true, Samples: 12},
			entry{zapcore.InfoLevel, "r4c: limit changed", map[string]any{"policy": "adaptivelimit", "instance": "aimd",
				"old_limit": int64(10), "new_limit": int64(9), "window_latency": time.Second,
				"max_in_flight": int64(10), "dropped": true, "samples": int64(12)}}},
		{"call rejected", events.CallRejected{Policy: "bulkhead", Instance: "orders", Err: bulkhead.ErrFull},
			entry{zapcore.DebugLevel, "r4c: call rejected", map[string]any{"policy": "bulkhead", "instance": "orders",
				"error": bulkhead.ErrFull.Error()}}},
		{"breaker opens", events.BreakerStateChanged{Instance: "payments", From: "closed", To: "open"},
			entry{zapcore.WarnLevel, "r4c: breaker state changed", map[string]any{"policy": "breaker", "instance": "payments",
				"from": "closed", "to": "open"}}},
		{"breaker forced open", events.BreakerStateChanged{Instance: "payments", From: "closed", To: "forced-open"},
			entry{zapcore.WarnLevel, "r4c: breaker state changed", map[string]any{"policy": "breaker", "instance": "payments",
				"from": "closed", "to": "forced-open"}}},
		{"breaker half-open", events.BreakerStateChanged{Instance: "payments", From: "open", To: "half-open"},
			entry{zapcore.InfoLevel, "r4c: breaker state changed", map[string]any{"policy": "breaker", "instance": "payments",
				"from": "open", "to": "half-open"}}},
		{"retry", events.RetryAttempt{Instance: "flaky", Attempt: 2, Wait: 500 * time.Millisecond, Err: errBackend},
			entry{zapcore.DebugLevel, "r4c: retry attempt", map[string]any{"policy": "retry", "instance": "flaky",
				"attempt": int64(2), "wait": 500 * time.Millisecond, "error": "backend failed"}}},
		{"retry without error", events.RetryAttempt{Instance: "flaky", Attempt: 3, Wait: time.Second},
			entry{zapcore.DebugLevel, "r4c: retry attempt", map[string]any{"policy": "retry", "instance": "flaky",
				"attempt": int64(3), "wait": time.Second}}},
		{"timeout", events.Timeout{Instance: "slow", Timeout: 2 * time.Second},
			entry{zapcore.InfoLevel, "r4c: timeout", map[string]any{"policy": "timeout", "instance": "slow",
				"timeout": 2 * time.Second}}},
		{"hedge", events.HedgeStarted{Instance: "hedged", Attempt: 2},
			entry{zapcore.DebugLevel, "r4c: hedge started", map[string]any{"policy": "hedge", "instance": "hedged",
				"attempt": int64(2)}}},
		{"fallback", events.FallbackUsed{Instance: "flaky", Err: errBackend},
			entry{zapcore.DebugLevel, "r4c: fallback used", map[string]any{"policy": "fallback", "instance": "flaky",
				"error": "backend failed"}}},
		{"store lost", events.StoreStateChanged{Policy: "ratelimit", Instance: "partner", Fallback: true, Mode: "local", Err: errBackend},
			entry{zapcore.WarnLevel, "r4c: store state changed", map[string]any{"policy": "ratelimit", "instance": "partner",
				"fallback": true, "mode": "local", "error": "backend failed"}}},
		{"store back", events.StoreStateChanged{Policy: "ratelimit", Instance: "partner", Mode: "local"},
			entry{zapcore.InfoLevel, "r4c: store state changed", map[string]any{"policy": "ratelimit", "instance": "partner",
				"fallback": false, "mode": "local"}}},
		{"another event", otherEvent{},
			entry{zapcore.DebugLevel, "r4c: event", map[string]any{"policy": "custom", "instance": "mine", "kind": "unknown"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.DebugLevel)
			r4czap.Listener(zap.New(core))(tt.e)
			assert.Equal(t, []entry{tt.want}, entries(logs))
		})
	}
}

func TestEntriesBelowTheLevelAreSkipped(t *testing.T) {
	core, logs := observer.New(zapcore.WarnLevel)
	l := r4czap.Listener(zap.New(core))
	l(events.LimitChanged{Instance: "search", OldLimit: 2, NewLimit: 3})
	l(events.CallRejected{Policy: "adaptivelimit", Instance: "search"})
	l(events.BreakerStateChanged{Instance: "payments", From: "open", To: "half-open"})
	l(events.Timeout{Instance: "slow", Timeout: time.Second})
	l(otherEvent{})
	l(nil)
	assert.Zero(t, logs.Len())
	l(events.BreakerStateChanged{Instance: "payments", From: "closed", To: "open"})
	assert.Equal(t, []entry{{zapcore.WarnLevel, "r4c: breaker state changed",
		map[string]any{"policy": "breaker", "instance": "payments", "from": "closed", "to": "open"}}}, entries(logs))
}

func TestNilLoggerMeansTheGlobal(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	l := r4czap.Listener(nil)
	undo := zap.ReplaceGlobals(zap.New(core)) // after Listener: looked up at each event
	defer undo()
	l(events.Timeout{Instance: "slow", Timeout: time.Second})
	assert.Equal(t, []entry{{zapcore.InfoLevel, "r4c: timeout",
		map[string]any{"policy": "timeout", "instance": "slow", "timeout": time.Second}}}, entries(logs))
}

func TestSubscribedToARegistry(t *testing.T) {
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	require.NoError(t, err)
	p, err := pipeline.NewBuilder[string](reg, "orders").
		Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = 1 }).Build()
	require.NoError(t, err)
	core, logs := observer.New(zapcore.DebugLevel)
	stop := reg.Events().Subscribe(r4czap.Listener(zap.New(core)))
	defer stop()

	inside := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := p.Execute(func() (string, error) { close(inside); <-release; return "ok", nil })
		done <- err
	}()
	<-inside
	_, rejected := p.Execute(func() (string, error) { return "ok", nil })
	require.ErrorIs(t, rejected, bulkhead.ErrFull)
	close(release)
	require.NoError(t, <-done)
	_, err = p.Execute(func() (string, error) { return "ok", nil })
	require.NoError(t, err)

	assert.Equal(t, []entry{{zapcore.DebugLevel, "r4c: call rejected",
		map[string]any{"policy": "bulkhead", "instance": "orders", "error": rejected.Error()}}}, entries(logs),
		"one entry: admitted calls publish nothing")
}

func TestBufferedForSlowCores(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	b := events.NewBuffered(16, r4czap.Listener(zap.New(core)))
	for i := range 3 {
		b.Listen(events.HedgeStarted{Instance: "hedged", Attempt: i + 2})
	}
	b.Close() // waits for the queued events
	var attempts []any
	for _, e := range entries(logs) {
		attempts = append(attempts, e.fields["attempt"])
	}
	assert.Equal(t, []any{int64(2), int64(3), int64(4)}, attempts)
	assert.Zero(t, b.Dropped())
}

func TestConcurrentEvents(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	l := r4czap.Listener(zap.New(core))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				l(events.HedgeStarted{Instance: "hedged", Attempt: 2})
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 400, logs.Len())
}
