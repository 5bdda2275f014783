package pipeline_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/internal/testkit"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// The tests of this file run real pipelines on a ManualClock and check the
// interplay contract of SPEC.md ("Order and interplay").

func manual(t *testing.T, opts ...r4c.Option) (*clocktest.ManualClock, *r4c.Registry) {
	t.Helper()
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(append([]r4c.Option{r4c.WithClock(clk)}, opts...)...)
	require.NoError(t, err)
	return clk, reg
}

func waitTimers(t *testing.T, clk *clocktest.ManualClock, n int) {
	t.Helper()
	testkit.BlockUntil(t, clk, n)
}

func aimd(initial int) func(*adaptivelimit.Config) {
	return func(c *adaptivelimit.Config) {
		c.Algorithm = adaptivelimit.AIMD
		c.InitialLimit = initial
		c.MinWindowSamples = 1
	}
}

type result struct {
	v   int
	err error
}

// hold starts a call that holds its slots until release is closed.
func hold(t *testing.T, p *pipeline.Pipeline[int]) (release func(), done <-chan result) {
	t.Helper()
	entered := make(chan struct{})
	rel := make(chan struct{})
	out := make(chan result, 1)
	go func() {
		v, err := p.ExecuteContext(context.Background(), func(ctx context.Context) (int, error) {
			close(entered)
			<-rel
			return 1, nil
		})
		out <- result{v, err}
	}()
	<-entered
	return func() { close(rel) }, out
}

func TestTimeoutInsideTheLimitIsADropAndAIMDBacksOff(t *testing.T) {
	clk, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "orders").
		Timeout(func(c *timeout.Config) { c.Timeout = 100 * time.Millisecond }).
		AdaptiveLimit(aimd(10)).
		Build()
	require.NoError(t, err)
	clk.Advance(900 * time.Millisecond) // the first window ends when the timeout fires

	out := make(chan result, 1)
	release := make(chan struct{})
	go func() {
		v, err := p.ExecuteContext(context.Background(), func(ctx context.Context) (int, error) {
			<-release // ignores its ctx: the caller still gets the timeout at the deadline
			return 0, nil
		})
		out <- result{v, err}
	}()
	waitTimers(t, clk, 1) // the deadline is armed
	clk.Advance(100 * time.Millisecond)
	r := <-out
	close(release)

	require.ErrorIs(t, r.err, timeout.ErrCallTimeout)
	assert.ErrorIs(t, r.err, context.DeadlineExceeded)
	assert.NotErrorIs(t, r.err, policy.ErrRejected, "the function was called")
	h, err := reg.AdaptiveLimit("orders")
	require.NoError(t, err)
	s := h.Snapshot()
	assert.EqualValues(t, 1, s.Drops)
	assert.EqualValues(t, 1, s.Windows)
	assert.Equal(t, 100*time.Millisecond, s.WindowLatency, "the drop's latency is the timeout")
	assert.Equal(t, 9, s.Limit, "AIMD: int(10 * 0.9)")
}

func TestFullBulkheadInsideTheLimitIsADrop(t *testing.T) {
	clk, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "orders").
		Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = 1 }).
		AdaptiveLimit(aimd(10)).
		Build()
	require.NoError(t, err)
	release, done := hold(t, p)
	clk.Advance(time.Second)
	_, err = p.Execute(func() (int, error) { return 2, nil })
	require.ErrorIs(t, err, bulkhead.ErrFull)
	assert.ErrorIs(t, err, policy.ErrRejected)
	release()
	require.NoError(t, (<-done).err)

	h, _ := reg.AdaptiveLimit("orders")
	s := h.Snapshot()
	assert.EqualValues(t, 1, s.Drops)
	assert.Equal(t, 9, s.Limit, "the window ended on the drop and AIMD backed off")
	assert.Equal(t, 0, s.InFlight)
}

func TestRejectedByTheLimitAfterTakingARatePermit(t *testing.T) {
	_, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "orders").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1 }).
		RateLimit(func(c *ratelimit.Config) { c.Limit = 10; c.Burst = 10 }).
		Build()
	require.NoError(t, err)
	release, done := hold(t, p)
	defer func() { release(); <-done }()

	rl, err := reg.RateLimit("orders")
	require.NoError(t, err)
	before := rl.Snapshot().Available
	_, err = p.Execute(func() (int, error) { return 0, nil })
	require.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
	assert.Equal(t, before-1, rl.Snapshot().Available, "the rejected call took a permit first")
}

func TestRetryAroundAFullLimitTakesASlotPerAttemptAndNoneWhileWaiting(t *testing.T) {
	clk, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "orders").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1 }).
		Retry(func(c *retry.Config) { c.MaxAttempts = 3; c.Wait = 100 * time.Millisecond }).
		Build()
	require.NoError(t, err)
	h, _ := reg.AdaptiveLimit("orders")
	release, done := hold(t, p)

	out := make(chan result, 1)
	go func() {
		v, err := p.Execute(func() (int, error) { return 7, nil })
		out <- result{v, err}
	}()
	waitTimers(t, clk, 1) // the first attempt was rejected; the retry waits
	assert.Equal(t, 1, h.InFlight(), "the waiting retry holds no slot")
	release()
	require.NoError(t, (<-done).err)
	assert.Equal(t, 0, h.InFlight())
	clk.Advance(100 * time.Millisecond)
	r := <-out
	require.NoError(t, r.err)
	assert.Equal(t, 7, r.v)
	assert.Equal(t, 0, h.InFlight())
	assert.EqualValues(t, 1, h.Snapshot().Rejections)
	rs, _ := reg.Retry("orders")
	assert.EqualValues(t, 1, rs.Snapshot().SuccessesWithRetry)
}

func TestRetryAbortsOnLimitExceededWhenListed(t *testing.T) {
	_, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "orders").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1 }).
		Retry(func(c *retry.Config) { c.AbortOn = []error{adaptivelimit.ErrLimitExceeded} }).
		Build()
	require.NoError(t, err)
	release, done := hold(t, p)
	defer func() { release(); <-done }()
	_, err = p.Execute(func() (int, error) { return 0, nil })
	require.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded, "failed at once, no wait")
	var lee *adaptivelimit.LimitExceededError
	require.ErrorAs(t, err, &lee)
	assert.Equal(t, "orders", lee.InstanceID())
}

func TestBreakerOpensOnLimitExceededUnlessIgnored(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		_, reg := manual(t)
		p, err := pipeline.NewBuilder[int](reg, "orders").
			AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1 }).
			Breaker(func(c *breaker.Config) {
				c.WindowSize, c.MinimumCalls = 2, 2
				if ignore {
					c.IgnoreOn = []error{adaptivelimit.ErrLimitExceeded}
				}
			}).
			Build()
		require.NoError(t, err)
		release, done := hold(t, p)
		for range 2 {
			_, err = p.Execute(func() (int, error) { return 0, nil })
			require.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
		}
		release()
		require.NoError(t, (<-done).err)
		b, _ := reg.Breaker("orders")
		_, err = p.Execute(func() (int, error) { return 0, nil })
		if ignore {
			assert.Equal(t, breaker.StateClosed, b.State(), "ignored rejections do not count")
			assert.NoError(t, err)
		} else {
			assert.Equal(t, breaker.StateOpen, b.State(), "two failures of two calls")
			assert.ErrorIs(t, err, breaker.ErrOpen)
			assert.ErrorIs(t, err, policy.ErrRejected)
		}
	}
}

func TestHedgeStopsStartingAttemptsWhenTheLimitRejectsOne(t *testing.T) {
	// In a synctest bubble: the hand-off of attempt 2's rejection to the
	// hedge is waited for exactly (synctest.Wait), not polled.
	synctest.Test(t, func(t *testing.T) {
		clk, reg := manual(t)
		p, err := pipeline.NewBuilder[int](reg, "orders").
			AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1 }).
			Hedge(func(c *hedge.Config) { c.Delay = 100 * time.Millisecond; c.MaxHedged = 3 }).
			Build()
		require.NoError(t, err)
		release := make(chan struct{})
		running := make(chan struct{}, 1)
		out := make(chan result, 1)
		go func() {
			v, err := p.ExecuteContext(context.Background(), func(ctx context.Context) (int, error) {
				running <- struct{}{}
				select {
				case <-release:
					return 5, nil
				case <-ctx.Done():
					return 0, ctx.Err()
				}
			})
			out <- result{v, err}
		}()
		// The hedge's timer is armed before attempt 1 starts; attempt 1
		// holds the only slot once its function runs.
		<-running
		synctest.Wait()
		require.Equal(t, 1, clk.Pending(), "the hedge's timer")
		clk.Advance(100 * time.Millisecond) // attempt 2 starts and is rejected by the full limit
		// Every goroutine of the call is now blocked: attempt 1 on
		// release, the hedge waiting for it, attempt 2's rejection taken
		// (else attempt 1's success could reach the hedge first and end
		// the call without it).
		synctest.Wait()
		hs, _ := reg.Hedge("orders")
		require.EqualValues(t, 1, hs.Snapshot().RejectionStops)
		al, _ := reg.AdaptiveLimit("orders")
		require.Equal(t, 1, al.InFlight(), "attempt 1 only")
		close(release)
		r := <-out
		require.NoError(t, r.err)
		assert.Equal(t, 5, r.v)
		s := hs.Snapshot()
		assert.EqualValues(t, 1, s.HedgesStarted)
		assert.EqualValues(t, 1, s.RejectionStops)
		assert.Zero(t, clk.Pending(), "no timer left for a third attempt")
		assert.Equal(t, 0, al.InFlight())
	})
}

func TestFallbackSeesRejections(t *testing.T) {
	_, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "orders").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1 }).
		Fallback(func(c *fallback.Config) {
			fallback.Return(-1)(c)
			c.HandleOn = []error{policy.ErrRejected}
		}).
		Build()
	require.NoError(t, err)
	release, done := hold(t, p)
	v, err := p.Execute(func() (int, error) { return 0, nil })
	require.NoError(t, err)
	assert.Equal(t, -1, v)
	release()
	require.NoError(t, (<-done).err)
	v, err = p.Execute(func() (int, error) { return 0, errors.New("not a rejection") })
	assert.EqualError(t, err, "not a rejection")
	assert.Equal(t, 0, v)
}

func TestFallbackValueOfTheWrongTypeFailsBuild(t *testing.T) {
	_, reg := manual(t)
	_, err := pipeline.NewBuilder[int](reg, "orders").
		Fallback(func(c *fallback.Config) { c.Value = "not an int" }).
		Build()
	var ce *r4c.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, r4c.CodeCombination, ce.Code)
	assert.Equal(t, "instances.orders.fallback.value", ce.Key)
	_, err = reg.Fallback("orders")
	assert.Error(t, err, "nothing registered")
}

// The reference page's ManualClock example, through a pipeline.
func TestAsyncLimitHoldsSlotsUntilFuturesComplete(t *testing.T) {
	clk, reg := manual(t, r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 }))
	p, err := pipeline.NewBuilder[string](reg, "orders-async").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 2 }).
		Build()
	require.NoError(t, err)
	pending := map[string]*future.Promise[string]{}
	place := func(order string) *future.Future[string] {
		return p.ExecuteFuture(context.Background(), func(ctx context.Context) *future.Future[string] {
			pr := future.NewPromise[string]()
			pending[order] = pr
			return pr.Future()
		})
	}
	a, b := place("a"), place("b")
	c := place("c")
	select {
	case <-c.Done():
	default:
		t.Fatal("a full limit returns a failed future at once")
	}
	_, err = c.Get(context.Background())
	require.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
	assert.NotContains(t, pending, "c", "the function was not called")

	clk.Advance(time.Second)
	pending["a"].Complete("placed a")
	pending["b"].Complete("placed b")
	va, _ := a.Get(context.Background())
	vb, _ := b.Get(context.Background())
	assert.Equal(t, "placed a", va)
	assert.Equal(t, "placed b", vb)
	h, _ := reg.AdaptiveLimit("orders-async")
	assert.EqualValues(t, 1, h.Snapshot().Windows)
	assert.Equal(t, time.Second, h.Snapshot().WindowLatency)
	assert.Equal(t, 0, h.InFlight())

	// Cancelling frees the slot without a sample.
	d := place("d")
	assert.Equal(t, 1, h.InFlight())
	assert.True(t, d.Cancel())
	assert.Equal(t, 0, h.InFlight())
	assert.False(t, pending["d"].Complete("late"), "the work's future was cancelled too")
	assert.EqualValues(t, 1, h.Snapshot().Windows)
}
