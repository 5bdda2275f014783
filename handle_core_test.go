package r4c_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// A handle's core is the instance the pipeline runs: what is taken through
// the core shows in the handle and holds back the pipeline's calls.
func TestHandleCoreIsTheRegistryInstance(t *testing.T) {
	reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	require.NoError(t, err)
	p, err := pipeline.NewBuilder[string](reg, "svc").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1 }).
		Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = 1 }).
		Breaker(nil).
		RateLimit(func(c *ratelimit.Config) { c.Limit = 1; c.Burst = 1 }).
		Build()
	require.NoError(t, err)
	ctx := context.Background()

	al, _ := reg.AdaptiveLimit("svc")
	permit, err := al.Limiter().Acquire(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, al.InFlight())
	_, err = p.Execute(func() (string, error) { return "x", nil })
	assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded, "the slot taken through the core is the pipeline's")
	al.Limiter().Release(permit, adaptivelimit.OutcomeIgnore)
	assert.Same(t, al, al.Limiter().Handle())

	bh, _ := reg.Bulkhead("svc")
	require.NoError(t, bh.Bulkhead().Acquire(ctx))
	assert.Equal(t, 1, bh.InFlight())
	bh.Bulkhead().Release()

	br, _ := reg.Breaker("svc")
	br.Breaker().TransitionToForcedOpen()
	assert.Equal(t, breaker.StateForcedOpen, br.State())
	br.Breaker().TransitionToClosed()

	rl, _ := reg.RateLimit("svc")
	assert.False(t, rl.Limiter().Allow(), "the pipeline's call (rejected inside, by the limit) took the one permit")
	assert.Equal(t, 0, rl.Available())
}
