package r4credis_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// The store through the registry, as Example wires it: the Store and the
// QuotaKey in code, the store's keys from outside.
func TestRegistryWiring(t *testing.T) {
	s := needServer(t)
	store := newStore(t, s.client(t))
	id := uniq(t)
	reg, err := r4c.NewRegistry(
		r4c.WithRateLimitConfig("partner", func(c *ratelimit.Config) {
			c.Store = store
			c.Limit, c.Period, c.Burst = 2, time.Minute, 2
			c.QuotaKey = tenant
		}),
		r4c.WithProperties(map[string]string{
			"instances." + id + ".rateLimit.storeTimeout":  "2s", // a loaded machine's first dial
			"instances." + id + ".rateLimit.fallback":      "closed",
			"instances." + id + ".rateLimit.lease":         "2",
			"instances." + id + ".rateLimit.fallbackShare": "0.5",
		}),
	)
	require.NoError(t, err)
	p, err := pipeline.NewBuilder[string](reg, id).
		RateLimit(func(c *ratelimit.Config) { c.BaseConfig = "partner" }).
		Build()
	require.NoError(t, err)
	h, err := reg.RateLimit(id)
	require.NoError(t, err)
	cfg := h.Config()
	assert.Equal(t, 2*time.Second, cfg.StoreTimeout)
	assert.Equal(t, ratelimit.FallbackClosed, cfg.Fallback)
	assert.Equal(t, 2, cfg.Lease)
	assert.Equal(t, 0.5, cfg.FallbackShare)
	assert.Same(t, store, cfg.Store)

	ctx := context.WithValue(context.Background(), tenantKey{}, "t1")
	call := func(ctx context.Context) (string, error) { return "ok", nil }
	for range 2 {
		v, err := p.ExecuteContext(ctx, call)
		require.NoError(t, err)
		assert.Equal(t, "ok", v)
	}
	_, err = p.ExecuteContext(ctx, call)
	assert.ErrorIs(t, err, ratelimit.ErrRateLimited)
	assert.ErrorIs(t, err, policy.ErrRejected)
	_, err = p.ExecuteContext(context.WithValue(context.Background(), tenantKey{}, "t2"), call)
	assert.NoError(t, err, "another tenant's quota")
	snap := reg.Snapshot().RateLimits[id]
	assert.True(t, snap.Store)
	assert.Equal(t, int64(1), snap.Rejections)
}
