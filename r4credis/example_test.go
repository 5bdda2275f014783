package r4credis_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/r4credis"
)

// One rate limit for every replica of a service, and a quota per tenant:
// each replica runs this with the same Redis. The program
// r4credis/examples/replicas runs several such replicas against a redis-server.
func Example() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer client.Close()
	store, err := r4credis.New(client, r4credis.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	type tenantKey struct{}
	reg, err := r4c.NewRegistry(
		r4c.WithRateLimitConfig("partner-api", func(c *ratelimit.Config) {
			c.Store = store
			c.Limit, c.Period = 100, time.Second
			c.QuotaKey = func(ctx context.Context) string { t, _ := ctx.Value(tenantKey{}).(string); return t }
			c.FallbackShare = 0.25 // four replicas: their fallbacks sum to the limit
		}),
		// From outside: instances.partner-api.rateLimit.storeTimeout=20ms,
		// ...fallback=closed, ...lease=10 and the like.
		r4c.WithProperties(map[string]string{"instances.partner-api.rateLimit.storeTimeout": "20ms"}),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := pipeline.NewBuilder[string](reg, "partner-api").
		RateLimit(func(c *ratelimit.Config) { c.BaseConfig = "partner-api" }).
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.WithValue(context.Background(), tenantKey{}, "tenant-42")
	s, err := p.ExecuteContext(ctx, func(ctx context.Context) (string, error) { return "called", nil })
	fmt.Println(s, err)
}
