package r4cslog_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	r4cslog "github.com/resilience4cata/r4c/logging/slog"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/bulkhead"
)

var errBackend = errors.New("backend failed")

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// textLogger returns a logger writing text records without their time to
// buf, at level and above.
func textLogger(buf *syncBuffer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// otherEvent is an event type of another package.
type otherEvent struct{}

func (otherEvent) Kind() events.Kind        { return events.Kind(99) }
func (otherEvent) Source() (string, string) { return "custom", "mine" }

func TestEveryEventAtItsLevel(t *testing.T) {
	tests := []struct {
		name string
		e    events.Event
		want string
	}{
		{"limit changed", events.LimitChanged{Instance: "search", OldLimit: 20, NewLimit: 18,
			WindowLatency: 120 * time.Millisecond, LongLatency: 80 * time.Millisecond, MaxInFlight: 19, Dropped: true, Samples: 42},
			`level=INFO msg="r4c: limit changed" policy=adaptivelimit instance=search old_limit=20 new_limit=18 window_latency=120ms long_latency=80ms max_in_flight=19 dropped=true samples=42`},
		{"limit changed without a long-term latency", events.LimitChanged{Instance: "aimd", OldLimit: 10, NewLimit: 9,
			WindowLatency: time.Second, MaxInFlight: 10, Dropped: true, Samples: 12},
			`level=INFO msg="r4c: limit changed" policy=adaptivelimit instance=aimd old_limit=10 new_limit=9 window_latency=1s max_in_flight=10 dropped=true samples=12`},
		{"call rejected", events.CallRejected{Policy: "bulkhead", Instance: "orders", Err: bulkhead.ErrFull},
			`level=DEBUG msg="r4c: call rejected" policy=bulkhead instance=orders error="` + bulkhead.ErrFull.Error() + `"`},
		{"breaker opens", events.BreakerStateChanged{Instance: "payments", From: "closed", To: "open"},
			`level=WARN msg="r4c: breaker state changed" policy=breaker instance=payments from=closed to=open`},
		{"breaker forced open", events.BreakerStateChanged{Instance: "payments", From: "closed", To: "forced-open"},
			`level=WARN msg="r4c: breaker state changed" policy=breaker instance=payments from=closed to=forced-open`},
		{"breaker half-open", events.BreakerStateChanged{Instance: "payments", From: "open", To: "half-open"},
			`level=INFO msg="r4c: breaker state changed" policy=breaker instance=payments from=open to=half-open`},
		{"breaker closes", events.BreakerStateChanged{Instance: "payments", From: "half-open", To: "closed"},
			`level=INFO msg="r4c: breaker state changed" policy=breaker instance=payments from=half-open to=closed`},
		{"retry", events.RetryAttempt{Instance: "flaky", Attempt: 2, Wait: 500 * time.Millisecond, Err: errBackend},
			`level=DEBUG msg="r4c: retry attempt" policy=retry instance=flaky attempt=2 wait=500ms error="backend failed"`},
		{"retry without error", events.RetryAttempt{Instance: "flaky", Attempt: 3, Wait: time.Second},
			`level=DEBUG msg="r4c: retry attempt" policy=retry instance=flaky attempt=3 wait=1s`},
		{"timeout", events.Timeout{Instance: "slow", Timeout: 2 * time.Second},
			`level=INFO msg="r4c: timeout" policy=timeout instance=slow timeout=2s`},
		{"hedge", events.HedgeStarted{Instance: "hedged", Attempt: 2},
			`level=DEBUG msg="r4c: hedge started" policy=hedge instance=hedged attempt=2`},
		{"fallback", events.FallbackUsed{Instance: "flaky", Err: errBackend},
			`level=DEBUG msg="r4c: fallback used" policy=fallback instance=flaky error="backend failed"`},
		{"store lost", events.StoreStateChanged{Policy: "ratelimit", Instance: "partner", Fallback: true, Mode: "local", Err: errBackend},
			`level=WARN msg="r4c: store state changed" policy=ratelimit instance=partner fallback=true mode=local error="backend failed"`},
		{"store back", events.StoreStateChanged{Policy: "ratelimit", Instance: "partner", Mode: "local"},
			`level=INFO msg="r4c: store state changed" policy=ratelimit instance=partner fallback=false mode=local`},
		{"another event", otherEvent{},
			`level=DEBUG msg="r4c: event" policy=custom instance=mine kind=unknown`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf syncBuffer
			r4cslog.Listener(textLogger(&buf, slog.LevelDebug))(tt.e)
			assert.Equal(t, tt.want+"\n", buf.String())
		})
	}
}

func TestRecordsBelowTheLevelAreSkipped(t *testing.T) {
	var buf syncBuffer
	l := r4cslog.Listener(textLogger(&buf, slog.LevelWarn))
	l(events.LimitChanged{Instance: "search", OldLimit: 2, NewLimit: 3})
	l(events.CallRejected{Policy: "adaptivelimit", Instance: "search"})
	l(events.BreakerStateChanged{Instance: "payments", From: "open", To: "half-open"})
	l(events.Timeout{Instance: "slow", Timeout: time.Second})
	l(otherEvent{})
	l(nil)
	assert.Empty(t, buf.String())
	l(events.BreakerStateChanged{Instance: "payments", From: "closed", To: "open"})
	assert.Equal(t, `level=WARN msg="r4c: breaker state changed" policy=breaker instance=payments from=closed to=open`+"\n", buf.String())
}

func TestJSONAttributes(t *testing.T) {
	var buf syncBuffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
	r4cslog.Listener(logger)(events.RetryAttempt{Instance: "flaky", Attempt: 2, Wait: time.Second, Err: errBackend})
	assert.JSONEq(t, `{"level":"DEBUG","msg":"r4c: retry attempt","policy":"retry","instance":"flaky","attempt":2,"wait":1000000000,"error":"backend failed"}`,
		buf.String())
}

func TestNilLoggerMeansTheDefault(t *testing.T) {
	old := slog.Default()
	defer slog.SetDefault(old)
	var buf syncBuffer
	l := r4cslog.Listener(nil)
	slog.SetDefault(textLogger(&buf, slog.LevelInfo)) // after Listener: looked up at each event
	l(events.Timeout{Instance: "slow", Timeout: time.Second})
	assert.Equal(t, `level=INFO msg="r4c: timeout" policy=timeout instance=slow timeout=1s`+"\n", buf.String())
}

func TestSubscribedToARegistry(t *testing.T) {
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	require.NoError(t, err)
	p, err := pipeline.NewBuilder[string](reg, "orders").
		Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = 1 }).Build()
	require.NoError(t, err)
	var buf syncBuffer
	stop := reg.Events().Subscribe(r4cslog.Listener(textLogger(&buf, slog.LevelDebug)))
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

	assert.Equal(t, `level=DEBUG msg="r4c: call rejected" policy=bulkhead instance=orders error="`+rejected.Error()+`"`+"\n", buf.String(),
		"one record: admitted calls publish nothing")
}

func TestBufferedForSlowHandlers(t *testing.T) {
	var buf syncBuffer
	b := events.NewBuffered(16, r4cslog.Listener(textLogger(&buf, slog.LevelDebug)))
	for i := range 3 {
		b.Listen(events.HedgeStarted{Instance: "hedged", Attempt: i + 2})
	}
	b.Close() // waits for the queued events
	assert.Equal(t, strings.Join([]string{
		`level=DEBUG msg="r4c: hedge started" policy=hedge instance=hedged attempt=2`,
		`level=DEBUG msg="r4c: hedge started" policy=hedge instance=hedged attempt=3`,
		`level=DEBUG msg="r4c: hedge started" policy=hedge instance=hedged attempt=4`,
	}, "\n")+"\n", buf.String())
	assert.Zero(t, b.Dropped())
}

func TestConcurrentEvents(t *testing.T) {
	var buf syncBuffer
	l := r4cslog.Listener(textLogger(&buf, slog.LevelDebug))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				l(events.HedgeStarted{Instance: "hedged", Attempt: 2})
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 400, strings.Count(buf.String(), "\n"))
}

// countingHandler counts the records it is asked to handle.
type countingHandler struct {
	level   slog.Level
	handled int
}

func (h *countingHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *countingHandler) Handle(context.Context, slog.Record) error    { h.handled++; return nil }
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h *countingHandler) WithGroup(string) slog.Handler                { return h }
