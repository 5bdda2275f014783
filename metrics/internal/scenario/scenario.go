// Package scenario is the deterministic run of every policy kind that the
// Prometheus and OpenTelemetry modules' tests export and compare: one
// pipeline per kind on a ManualClock, driven through admissions,
// rejections, limit changes, retries, timeouts, hedges and fallbacks.
package scenario

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// ErrBackend is the failure the scenario's backends return.
var ErrBackend = errors.New("backend failed")

// Pipelines are the instances of the scenario, one pipeline per policy kind
// (the instance id is the pipeline's name).
type Pipelines struct {
	Clk      *clocktest.ManualClock
	Reg      *r4c.Registry
	Search   *pipeline.Pipeline[string] // adaptive limit, AIMD from 1
	Orders   *pipeline.Pipeline[string] // bulkhead of 1
	Quotes   *pipeline.Pipeline[string] // rate limiter, 1 per second
	Payments *pipeline.Pipeline[string] // breaker
	Flaky    *pipeline.Pipeline[string] // fallback around a retry of 2 attempts
	Slow     *pipeline.Pipeline[string] // timeout of 1s
	Hedged   *pipeline.Pipeline[string] // hedge after 100ms
}

// NewRegistry returns a registry on a new ManualClock.
func NewRegistry(t testing.TB) (*clocktest.ManualClock, *r4c.Registry) {
	t.Helper()
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	require.NoError(t, err)
	return clk, reg
}

// Build makes the scenario's Pipelines; nothing has run yet.
func Build(t testing.TB, clk *clocktest.ManualClock, reg *r4c.Registry) *Pipelines {
	t.Helper()
	p := &Pipelines{Clk: clk, Reg: reg}
	var err error
	p.Search, err = pipeline.NewBuilder[string](reg, "search").AdaptiveLimit(func(c *adaptivelimit.Config) {
		c.Algorithm = adaptivelimit.AIMD
		c.InitialLimit = 1
		c.MaxLimit = 10
		c.MinWindowSamples = 1
	}).Build()
	require.NoError(t, err)
	p.Orders, err = pipeline.NewBuilder[string](reg, "orders").
		Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = 1 }).Build()
	require.NoError(t, err)
	p.Quotes, err = pipeline.NewBuilder[string](reg, "quotes").RateLimit(func(c *ratelimit.Config) {
		c.Limit, c.Period, c.Burst = 1, time.Second, 1
	}).Build()
	require.NoError(t, err)
	p.Payments, err = pipeline.NewBuilder[string](reg, "payments").
		Breaker(func(c *breaker.Config) { c.MinimumCalls, c.WindowSize = 2, 2 }).Build()
	require.NoError(t, err)
	p.Flaky, err = pipeline.NewBuilder[string](reg, "flaky").
		Retry(func(c *retry.Config) { c.MaxAttempts, c.Wait = 2, 100*time.Millisecond }).
		Fallback(func(c *fallback.Config) { c.Value = "cached" }).Build()
	require.NoError(t, err)
	p.Slow, err = pipeline.NewBuilder[string](reg, "slow").
		Timeout(func(c *timeout.Config) { c.Timeout = time.Second }).Build()
	require.NoError(t, err)
	p.Hedged, err = pipeline.NewBuilder[string](reg, "hedged").
		Hedge(func(c *hedge.Config) { c.Delay = 100 * time.Millisecond }).Build()
	require.NoError(t, err)
	return p
}

// OK is a function that succeeds at once.
func OK() (string, error) { return "ok", nil }

// AdvanceDuring runs fn on a goroutine and, once the clock has n timers
// armed (and ready, if not nil, is closed), advances the clock by d and
// returns fn's result.
func AdvanceDuring(t testing.TB, clk *clocktest.ManualClock, n int, ready <-chan struct{}, d time.Duration, fn func() (string, error)) (string, error) {
	t.Helper()
	type out struct {
		v   string
		err error
	}
	done := make(chan out, 1)
	go func() {
		v, err := fn()
		done <- out{v, err}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a guard against a hung test, not a wait
	defer cancel()
	if ready != nil {
		select {
		case <-ready:
		case <-ctx.Done():
			t.Fatal("the call did not start")
		}
	}
	require.NoError(t, clk.BlockUntil(ctx, n))
	clk.Advance(d)
	select {
	case o := <-done:
		return o.v, o.err
	case <-ctx.Done():
		t.Fatal("the call did not end")
		return "", nil
	}
}

// Run drives every pipeline through the scenario:
//   - search: one call holds the only slot 1s, a second is rejected; the
//     first ends the window (1 sample, 1 in flight) and AIMD raises the
//     limit from 1 to 2;
//   - orders: one call holds the only slot, a second is rejected;
//   - quotes: two calls at once, the second is rejected;
//   - payments: two failures open the breaker, a third call is rejected;
//   - flaky: both attempts fail, the fallback answers;
//   - slow: a call that waits for its ctx times out after 1s;
//   - hedged: the first attempt hangs, the hedge started after 100ms wins.
func (p *Pipelines) Run(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	rejected := func(_ string, err error) { t.Helper(); require.Error(t, err) }

	// search
	hold := future.NewPromise[string]()
	f := p.Search.ExecuteFuture(ctx, func(context.Context) *future.Future[string] { return hold.Future() })
	rejected(p.Search.Execute(OK))
	p.Clk.Advance(time.Second)
	hold.Complete("done")
	_, err := f.Get(ctx)
	require.NoError(t, err)

	// orders
	hold = future.NewPromise[string]()
	f = p.Orders.ExecuteFuture(ctx, func(context.Context) *future.Future[string] { return hold.Future() })
	rejected(p.Orders.Execute(OK))
	hold.Complete("done")
	_, err = f.Get(ctx)
	require.NoError(t, err)

	// quotes
	_, err = p.Quotes.Execute(OK)
	require.NoError(t, err)
	rejected(p.Quotes.Execute(OK))

	// payments
	fail := func() (string, error) { return "", ErrBackend }
	rejected(p.Payments.Execute(fail))
	rejected(p.Payments.Execute(fail))
	_, err = p.Payments.Execute(OK)
	require.ErrorIs(t, err, breaker.ErrOpen)

	// flaky
	v, err := AdvanceDuring(t, p.Clk, 1, nil, 100*time.Millisecond, func() (string, error) { return p.Flaky.Execute(fail) })
	require.NoError(t, err)
	require.Equal(t, "cached", v)

	// slow
	_, err = AdvanceDuring(t, p.Clk, 1, nil, time.Second, func() (string, error) {
		return p.Slow.ExecuteContext(ctx, func(ctx context.Context) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
	})
	require.ErrorIs(t, err, timeout.ErrCallTimeout)

	// hedged
	// The first attempt runs on a goroutine of the hedge: wait until it
	// is in the function, so that the second one to enter is the hedge.
	var attempts atomic.Int32
	entered := make(chan struct{})
	v, err = AdvanceDuring(t, p.Clk, 1, entered, 100*time.Millisecond, func() (string, error) {
		return p.Hedged.ExecuteContext(ctx, func(ctx context.Context) (string, error) {
			if attempts.Add(1) == 1 {
				close(entered)
				<-ctx.Done()
				return "", ctx.Err()
			}
			return "second", nil
		})
	})
	require.NoError(t, err)
	require.Equal(t, "second", v)
}

// HoldSlot starts a call of p that holds its slots until the returned
// function completes it (and waits for the pipeline's bookkeeping).
func HoldSlot(t testing.TB, p *pipeline.Pipeline[string]) (release func()) {
	t.Helper()
	hold := future.NewPromise[string]()
	f := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[string] { return hold.Future() })
	return func() {
		t.Helper()
		hold.Complete("done")
		_, err := f.Get(context.Background())
		require.NoError(t, err)
	}
}
