package r4c_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// TestSpecSurface walks the public surface as SPEC.md writes it, name for
// name, so that a rename breaks a test here first.
func TestSpecSurface(t *testing.T) {
	ctx := context.Background()
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(
		r4c.WithClock(clk),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 }),
		r4c.WithAdaptiveLimitConfig("backend", func(c *adaptivelimit.Config) {
			c.Algorithm = adaptivelimit.AIMD
			c.BackoffRatio = 0.8
		}),
		r4c.WithProperties(map[string]string{"defaults.adaptiveLimit.maxLimit": "100"}),
	)
	require.NoError(t, err)
	p, err := pipeline.NewBuilder[string](reg, "search").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.MaxLimit = 100 }).
		Timeout(func(c *timeout.Config) { c.Timeout = 2 * time.Second }).
		Build()
	require.NoError(t, err)

	var seen []events.Event
	stop := reg.Events().Subscribe(func(e events.Event) { seen = append(seen, e) })
	defer stop()

	s, err := p.Execute(func() (string, error) { return "java", nil })
	require.NoError(t, err)
	assert.Equal(t, "java", s)
	s, err = p.ExecuteContext(ctx, func(ctx context.Context) (string, error) {
		_, ok := ctx.Deadline()
		assert.True(t, ok, "the timeout's deadline reaches the function")
		return "ctx", nil
	})
	require.NoError(t, err)
	assert.Equal(t, "ctx", s)
	f := p.ExecuteAsync(ctx, func(ctx context.Context) (string, error) { return "async", nil })
	v, err := f.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, "async", v)
	<-f.Done()
	assert.False(t, f.Cancel(), "a completed future cannot be cancelled")

	pr := future.NewPromise[string]()
	f = p.ExecuteFuture(ctx, func(ctx context.Context) *future.Future[string] { return pr.Future() })
	clk.Advance(time.Second)
	assert.True(t, pr.Complete("x"))
	assert.False(t, pr.Fail(errors.New("late")), "the second completion is a no-op that says so")
	v, err = f.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, "x", v)

	h, err := reg.AdaptiveLimit("search")
	require.NoError(t, err)
	snap := h.Snapshot()
	assert.Equal(t, h.Limit(), snap.Limit)
	assert.Equal(t, h.InFlight(), snap.InFlight)
	assert.Equal(t, 1, snap.MinLimit)
	assert.Equal(t, 100, snap.MaxLimit)
	assert.EqualValues(t, 1, snap.Windows)
	assert.Equal(t, 250*time.Millisecond, snap.WindowLatency, "three instant calls and one of 1s")
	assert.Contains(t, reg.Snapshot().AdaptiveLimits, "search")

	_, err = reg.AdaptiveLimit("nope")
	var ce *r4c.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.True(t, errors.Is(err, r4c.ErrConfig))
	assert.Equal(t, "R4C-REG-009", ce.Code)
	assert.Equal(t, "nope", ce.Key)

	// The rejection family, one sentinel per policy.
	one, err := pipeline.NewBuilder[string](reg, "one").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1; c.MinLimit = 1 }).Build()
	require.NoError(t, err)
	held := future.NewPromise[string]()
	one.ExecuteFuture(ctx, func(context.Context) *future.Future[string] { return held.Future() })
	_, err = one.Execute(func() (string, error) { return "", nil })
	assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
	assert.ErrorIs(t, err, policy.ErrRejected)
	var lee *adaptivelimit.LimitExceededError
	require.ErrorAs(t, err, &lee)
	assert.Equal(t, "one", lee.InstanceID())
	held.Complete("done")
	for _, sentinel := range []error{timeout.ErrCallTimeout, bulkhead.ErrFull, ratelimit.ErrRateLimited, breaker.ErrOpen} {
		assert.Contains(t, sentinel.Error(), "r4c: ", "sentinels are package-prefixed")
		assert.False(t, errors.Is(sentinel, policy.ErrRejected), "a sentinel names the reason; the error types add the family")
	}
	var rejected int
	for _, e := range seen {
		if _, ok := e.(events.CallRejected); ok {
			rejected++
		}
	}
	assert.Equal(t, 1, rejected)
	require.NoError(t, clk.BlockUntil(ctx, 0))
	at := clk.Now().Add(time.Minute)
	clk.Set(at)
	assert.Equal(t, at, clk.Now())
}
