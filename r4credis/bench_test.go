package r4credis_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// The benchmarks take permits from a limit far above what they ask, so
// that every call is allowed, on the tests' redis-server: ns per allowed
// call and the round trips each costs (roundtrips/op, counted by a
// client hook), r4credis with and without leases against
// go-redis/redis_rate on the same server and client settings.

func benchClient(b *testing.B) (*redis.Client, *counter) {
	s := needServer(b)
	c := redis.NewClient(&redis.Options{Addr: s.addr(), ContextTimeoutEnabled: true})
	b.Cleanup(func() { c.Close() })
	cnt := &counter{}
	c.AddHook(cnt)
	return c, cnt
}

func report(b *testing.B, cnt *counter, base int64, allowed int) {
	if allowed != b.N {
		b.Fatalf("%d of %d calls allowed", allowed, b.N)
	}
	b.ReportMetric(float64(cnt.n.Load()-base)/float64(b.N), "roundtrips/op")
}

func benchR4credis(b *testing.B, lease int, parallel bool) {
	c, cnt := benchClient(b)
	l, err := ratelimit.New(ratelimit.Config{Limit: 1_000_000_000, Period: time.Second, Lease: lease, Store: newStore(b, c)},
		policy.Env{Instance: uniq(b)})
	if err != nil {
		b.Fatal(err)
	}
	l.Allow() // the script is loaded
	b.ReportAllocs()
	base := cnt.n.Load()
	b.ResetTimer()
	if parallel {
		var refused int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if !l.Allow() {
					refused++
				}
			}
		})
		report(b, cnt, base, b.N-int(refused))
		return
	}
	allowed := 0
	for range b.N {
		if l.Allow() {
			allowed++
		}
	}
	report(b, cnt, base, allowed)
}

func benchRedisRate(b *testing.B, parallel bool) {
	c, cnt := benchClient(b)
	lim := redis_rate.NewLimiter(c)
	key := uniq(b)
	limit := redis_rate.Limit{Rate: 1_000_000_000, Burst: 1_000_000_000, Period: time.Second}
	ctx := context.Background()
	if _, err := lim.Allow(ctx, key, limit); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	base := cnt.n.Load()
	b.ResetTimer()
	allow := func() bool {
		res, err := lim.Allow(ctx, key, limit)
		return err == nil && res.Allowed > 0
	}
	if parallel {
		var refused int64
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if !allow() {
					refused++
				}
			}
		})
		report(b, cnt, base, b.N-int(refused))
		return
	}
	allowed := 0
	for range b.N {
		if allow() {
			allowed++
		}
	}
	report(b, cnt, base, allowed)
}

func BenchmarkAllow(b *testing.B) {
	b.Run("r4credis", func(b *testing.B) { benchR4credis(b, 1, false) })
	b.Run("r4credis-lease10", func(b *testing.B) { benchR4credis(b, 10, false) })
	b.Run("r4credis-lease100", func(b *testing.B) { benchR4credis(b, 100, false) })
	b.Run("redis_rate", func(b *testing.B) { benchRedisRate(b, false) })
}

func BenchmarkAllowParallel(b *testing.B) {
	b.Run("r4credis", func(b *testing.B) { benchR4credis(b, 1, true) })
	b.Run("r4credis-lease10", func(b *testing.B) { benchR4credis(b, 10, true) })
	b.Run("redis_rate", func(b *testing.B) { benchRedisRate(b, true) })
}
