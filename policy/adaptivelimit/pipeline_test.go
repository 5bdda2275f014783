package adaptivelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// TestReferenceThroughPipeline is the reference page's ManualClock test as
// a user writes it: a registry on the manual clock, a pipeline, futures.
func TestReferenceThroughPipeline(t *testing.T) {
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(
		r4c.WithClock(clk),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 }),
	)
	require.NoError(t, err)
	p, err := pipeline.NewBuilder[string](reg, "orders-async").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 2 }).
		Build()
	require.NoError(t, err)
	limit, err := reg.AdaptiveLimit("orders-async")
	require.NoError(t, err)

	ctx := context.Background()
	pending := map[string]*future.Promise[string]{}
	place := func(order string) *future.Future[string] {
		return p.ExecuteFuture(ctx, func(context.Context) *future.Future[string] {
			pending[order] = future.NewPromise[string]()
			return pending[order].Future()
		})
	}
	a, b := place("a"), place("b")
	c := place("c")
	select {
	case <-c.Done():
	default:
		t.Fatal("a full limit must fail the future at once")
	}
	_, err = c.Get(ctx)
	var le *adaptivelimit.LimitExceededError
	require.True(t, errors.As(err, &le))
	assert.Equal(t, "orders-async", le.InstanceID())
	assert.True(t, errors.Is(err, policy.ErrRejected))

	clk.Advance(time.Second)
	pending["a"].Complete("placed a")
	pending["b"].Complete("placed b")
	va, _ := a.Get(ctx)
	vb, _ := b.Get(ctx)
	assert.Equal(t, "placed a", va)
	assert.Equal(t, "placed b", vb)
	s := limit.Snapshot()
	assert.Equal(t, int64(1), s.Windows)
	assert.Equal(t, time.Second, s.WindowLatency)
	assert.Zero(t, limit.InFlight())
	assert.Zero(t, clk.Pending())
}
