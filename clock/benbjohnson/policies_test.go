package benbjohnson_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clock/benbjohnson"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// watched passes everything to the adapter and tells the test each time a
// policy arms a timer or a deadline, and for how long: the mock has no way
// to say so itself, and an Add that comes before the timer is armed would
// pass it by.
type watched struct {
	policy.Clock
	armed chan time.Duration
}

func watch(mock *clock.Mock) *watched {
	return &watched{Clock: benbjohnson.New(mock), armed: make(chan time.Duration, 64)}
}

func (w *watched) NewTimer(d time.Duration) policy.Timer {
	t := w.Clock.NewTimer(d)
	w.armed <- d
	return t
}

func (w *watched) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	ctx, cancel := w.Clock.WithDeadline(parent, d)
	w.armed <- d.Sub(w.Now())
	return ctx, cancel
}

func registry(t *testing.T, clk policy.Clock, opts ...r4c.Option) *r4c.Registry {
	t.Helper()
	reg, err := r4c.NewRegistry(append([]r4c.Option{r4c.WithClock(clk)}, opts...)...)
	require.NoError(t, err)
	return reg
}

func TestAdaptiveLimitWindowsFollowTheMock(t *testing.T) {
	mock := clock.NewMock()
	reg := registry(t, benbjohnson.New(mock))
	p, err := pipeline.NewBuilder[string](reg, "search").
		AdaptiveLimit(func(c *adaptivelimit.Config) {
			c.Algorithm, c.InitialLimit, c.MinWindowSamples = adaptivelimit.AIMD, 10, 1
		}).Build()
	require.NoError(t, err)
	h, _ := reg.AdaptiveLimit("search")
	call := func(d time.Duration) {
		_, err := p.Execute(func() (string, error) { mock.Add(d); return "ok", nil })
		require.NoError(t, err)
	}

	call(400 * time.Millisecond)
	call(500 * time.Millisecond)
	assert.Equal(t, int64(0), h.Snapshot().Windows, "0.9 s in: the 1 s window is not over")
	call(600 * time.Millisecond)
	s := h.Snapshot()
	assert.Equal(t, int64(1), s.Windows, "the call that passes 1 s ends the window")
	assert.Equal(t, 500*time.Millisecond, s.WindowLatency, "the mean of the three latencies the mock measured")
	assert.Equal(t, 3, s.WindowSamples)
	assert.Equal(t, 1, s.MaxInFlight)
}

func TestRetryWaitsFollowTheMock(t *testing.T) {
	mock := clock.NewMock()
	clk := watch(mock)
	reg := registry(t, clk)
	p, err := pipeline.NewBuilder[string](reg, "orders").
		Retry(func(c *retry.Config) { c.MaxAttempts, c.Wait, c.Multiplier = 3, 100*time.Millisecond, 2 }).
		Build()
	require.NoError(t, err)
	var attempts atomic.Int32
	var at [3]time.Time
	got := make(chan error)
	go func() {
		_, err := p.Execute(func() (string, error) {
			n := attempts.Add(1)
			at[n-1] = mock.Now()
			if n < 3 {
				return "", errors.New("unavailable")
			}
			return "placed", nil
		})
		got <- err
	}()
	assert.Equal(t, 100*time.Millisecond, <-clk.armed, "the first wait")
	mock.Add(100 * time.Millisecond)
	assert.Equal(t, 200*time.Millisecond, <-clk.armed, "the second wait doubles")
	mock.Add(200 * time.Millisecond)
	require.NoError(t, <-got)
	assert.Equal(t, int32(3), attempts.Load())
	assert.Equal(t, 100*time.Millisecond, at[1].Sub(at[0]))
	assert.Equal(t, 200*time.Millisecond, at[2].Sub(at[1]))
}

func TestBreakerOpenWaitFollowsTheMock(t *testing.T) {
	mock := clock.NewMock()
	reg := registry(t, benbjohnson.New(mock))
	p, err := pipeline.NewBuilder[string](reg, "payments").
		Breaker(func(c *breaker.Config) {
			c.WindowSize, c.MinimumCalls, c.OpenFor, c.HalfOpenCalls = 2, 2, 30*time.Second, 1
		}).Build()
	require.NoError(t, err)
	h, _ := reg.Breaker("payments")
	fail := func() (string, error) { return "", errors.New("declined") }
	_, _ = p.Execute(fail)
	_, _ = p.Execute(fail)
	require.Equal(t, breaker.StateOpen, h.State())

	mock.Add(30*time.Second - time.Nanosecond)
	_, err = p.Execute(func() (string, error) { return "paid", nil })
	assert.ErrorIs(t, err, breaker.ErrOpen, "still open a nanosecond before OpenFor")
	mock.Add(time.Nanosecond)
	v, err := p.Execute(func() (string, error) { return "paid", nil })
	require.NoError(t, err, "the trial call goes through once OpenFor has passed")
	assert.Equal(t, "paid", v)
	assert.Equal(t, breaker.StateClosed, h.State())
}

func TestRateLimitRefillFollowsTheMock(t *testing.T) {
	mock := clock.NewMock()
	reg := registry(t, benbjohnson.New(mock))
	p, err := pipeline.NewBuilder[string](reg, "api").
		RateLimit(func(c *ratelimit.Config) { c.Limit, c.Period, c.Burst = 2, time.Second, 1 }).
		Build()
	require.NoError(t, err)
	ok := func() (string, error) { return "ok", nil }
	_, err = p.Execute(ok)
	require.NoError(t, err)
	_, err = p.Execute(ok)
	var rl *ratelimit.RateLimitedError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 500*time.Millisecond, rl.RetryAfter(), "one permit every 500ms, on the mock")
	mock.Add(499 * time.Millisecond)
	_, err = p.Execute(ok)
	assert.ErrorIs(t, err, ratelimit.ErrRateLimited)
	mock.Add(time.Millisecond)
	_, err = p.Execute(ok)
	assert.NoError(t, err, "refilled when the mock reaches the permit's instant")
}

func TestRateLimitWaitFollowsTheMock(t *testing.T) {
	mock := clock.NewMock()
	clk := watch(mock)
	reg := registry(t, clk)
	p, err := pipeline.NewBuilder[string](reg, "api").
		RateLimit(func(c *ratelimit.Config) { c.Limit, c.Period, c.Burst, c.MaxWait = 1, time.Second, 1, 2*time.Second }).
		Build()
	require.NoError(t, err)
	ok := func() (string, error) { return "ok", nil }
	_, err = p.Execute(ok)
	require.NoError(t, err)
	got := make(chan error)
	go func() { _, err := p.Execute(ok); got <- err }()
	assert.Equal(t, time.Second, <-clk.armed, "waits for the next permit")
	mock.Add(time.Second)
	assert.NoError(t, <-got)
}

func TestTimeoutFollowsTheMock(t *testing.T) {
	for _, cooperative := range []bool{false, true} {
		mock := clock.NewMock()
		clk := watch(mock)
		reg := registry(t, clk)
		p, err := pipeline.NewBuilder[string](reg, "slow").
			Timeout(func(c *timeout.Config) { c.Timeout, c.Cooperative = 2*time.Second, cooperative }).
			Build()
		require.NoError(t, err)
		deadline := make(chan time.Time, 1)
		got := make(chan error)
		go func() {
			_, err := p.ExecuteContext(context.Background(), func(ctx context.Context) (string, error) {
				dl, _ := ctx.Deadline()
				deadline <- dl
				<-ctx.Done()
				return "", ctx.Err()
			})
			got <- err
		}()
		assert.Equal(t, 2*time.Second, <-clk.armed)
		assert.Equal(t, mock.Now().Add(2*time.Second), <-deadline, "the function's ctx carries the mock's deadline")
		mock.Add(2 * time.Second)
		err = <-got
		assert.ErrorIs(t, err, timeout.ErrCallTimeout, "cooperative=%v", cooperative)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		h, _ := reg.Timeout("slow")
		assert.Equal(t, int64(1), h.Timeouts())
	}
}

func TestHedgeDelayFollowsTheMock(t *testing.T) {
	mock := clock.NewMock()
	clk := watch(mock)
	reg := registry(t, clk)
	p, err := pipeline.NewBuilder[string](reg, "lookup").
		Hedge(func(c *hedge.Config) { c.Delay, c.MaxHedged = 50*time.Millisecond, 1 }).
		Build()
	require.NoError(t, err)
	var attempts atomic.Int32
	got := make(chan string)
	go func() {
		v, _ := p.ExecuteContext(context.Background(), func(ctx context.Context) (string, error) {
			if attempts.Add(1) == 1 {
				<-ctx.Done() // the first attempt hangs until the hedge wins
				return "", ctx.Err()
			}
			return "hedged", nil
		})
		got <- v
	}()
	assert.Equal(t, 50*time.Millisecond, <-clk.armed, "the hedge waits its delay")
	mock.Add(50 * time.Millisecond)
	assert.Equal(t, "hedged", <-got)
	assert.Equal(t, int32(2), attempts.Load())
}

func TestBulkheadWaitFollowsTheMock(t *testing.T) {
	mock := clock.NewMock()
	clk := watch(mock)
	reg := registry(t, clk)
	p, err := pipeline.NewBuilder[string](reg, "db").
		Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent, c.MaxWait = 1, 100*time.Millisecond }).
		Build()
	require.NoError(t, err)
	release, entered := make(chan struct{}), make(chan struct{})
	first := make(chan error)
	go func() {
		_, err := p.Execute(func() (string, error) { close(entered); <-release; return "", nil })
		first <- err
	}()
	<-entered
	second := make(chan error)
	go func() { _, err := p.Execute(func() (string, error) { return "", nil }); second <- err }()
	assert.Equal(t, 100*time.Millisecond, <-clk.armed)
	mock.Add(100 * time.Millisecond)
	assert.ErrorIs(t, <-second, bulkhead.ErrFull, "gave up when the mock passed MaxWait")
	close(release)
	assert.NoError(t, <-first)
}

// A mock set back gives a negative latency: the adaptive limit records it
// as 0, and the window ends only when the clock passes its end again.
func TestMockSetBackAdaptiveLimit(t *testing.T) {
	mock := clock.NewMock()
	reg := registry(t, benbjohnson.New(mock))
	p, err := pipeline.NewBuilder[string](reg, "search").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.Algorithm, c.MinWindowSamples = adaptivelimit.AIMD, 1 }).
		Build()
	require.NoError(t, err)
	h, _ := reg.AdaptiveLimit("search")
	_, err = p.Execute(func() (string, error) { mock.Set(mock.Now().Add(-time.Second)); return "", nil })
	require.NoError(t, err)
	_, err = p.Execute(func() (string, error) { mock.Add(1500 * time.Millisecond); return "", nil })
	require.NoError(t, err)
	assert.Equal(t, int64(0), h.Snapshot().Windows, "back at +0.5 s: the window (to +1 s) is not over")
	_, err = p.Execute(func() (string, error) { mock.Add(600 * time.Millisecond); return "", nil })
	require.NoError(t, err)
	s := h.Snapshot()
	require.Equal(t, int64(1), s.Windows)
	assert.Equal(t, 3, s.WindowSamples)
	assert.Equal(t, 700*time.Millisecond, s.WindowLatency, "(0 + 1.5 s + 0.6 s) / 3: the -1 s counts as 0")
}

// A mock set back delays the rate limiter's next permit by the step: the
// time set back is not given twice.
func TestMockSetBackRateLimit(t *testing.T) {
	mock := clock.NewMock()
	reg := registry(t, benbjohnson.New(mock))
	p, err := pipeline.NewBuilder[string](reg, "api").
		RateLimit(func(c *ratelimit.Config) { c.Limit, c.Period, c.Burst = 1, time.Second, 1 }).
		Build()
	require.NoError(t, err)
	ok := func() (string, error) { return "ok", nil }
	_, err = p.Execute(ok)
	require.NoError(t, err)
	mock.Set(mock.Now().Add(-time.Second))
	mock.Add(time.Second) // back where the permit was taken
	_, err = p.Execute(ok)
	assert.ErrorIs(t, err, ratelimit.ErrRateLimited)
	mock.Add(time.Second)
	_, err = p.Execute(ok)
	assert.NoError(t, err)
}
