package r4credis_test

import (
	"context"
	"syscall"
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
// go-redis/redis_rate on the same server and client settings. On a shared
// machine the wall-clock time of a round trip follows the machine's load;
// cpu-ns/op, the CPU time this process spent per call (user and system,
// all threads, from getrusage; the server's is not included), does not.

// cpuTime returns the CPU time the process has used, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func benchClient(b *testing.B) (*redis.Client, *counter) {
	s := needServer(b)
	c := redis.NewClient(&redis.Options{Addr: s.addr(), ContextTimeoutEnabled: true})
	b.Cleanup(func() { c.Close() })
	cnt := &counter{}
	c.AddHook(cnt)
	return c, cnt
}

func report(b *testing.B, cnt *counter, base, cpu0 int64, allowed int) {
	b.StopTimer()
	if allowed != b.N {
		b.Fatalf("%d of %d calls allowed", allowed, b.N)
	}
	b.ReportMetric(float64(cnt.n.Load()-base)/float64(b.N), "roundtrips/op")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

func benchR4credis(b *testing.B, lease int, parallel bool) {
	c, cnt := benchClient(b)
	// A store timeout far above any round trip: a benchmark of the store
	// must not fall back on a loaded machine (checked at the end).
	l, err := ratelimit.New(ratelimit.Config{Limit: 1_000_000_000, Period: time.Second, Lease: lease, Store: newStore(b, c),
		StoreTimeout: 10 * time.Second}, policy.Env{Instance: uniq(b)})
	if err != nil {
		b.Fatal(err)
	}
	l.Allow() // the script is loaded
	defer func() {
		if f := l.Handle().Snapshot().StoreFailures; f > 0 {
			b.Fatalf("the store failed %d times", f)
		}
	}()
	b.ReportAllocs()
	base, cpu0 := cnt.n.Load(), cpuTime()
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
		report(b, cnt, base, cpu0, b.N-int(refused))
		return
	}
	allowed := 0
	for range b.N {
		if l.Allow() {
			allowed++
		}
	}
	report(b, cnt, base, cpu0, allowed)
}

// benchRedisRate runs go-redis/redis_rate's Allow; with deadline, each
// call gets a ctx with a deadline as r4credis's do (the store timeout),
// to tell what that bound costs.
func benchRedisRate(b *testing.B, parallel, deadline bool) {
	c, cnt := benchClient(b)
	lim := redis_rate.NewLimiter(c)
	key := uniq(b)
	limit := redis_rate.Limit{Rate: 1_000_000_000, Burst: 1_000_000_000, Period: time.Second}
	ctx := context.Background()
	if _, err := lim.Allow(ctx, key, limit); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	base, cpu0 := cnt.n.Load(), cpuTime()
	b.ResetTimer()
	allow := func() bool {
		ctx := ctx
		if deadline {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
		}
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
		report(b, cnt, base, cpu0, b.N-int(refused))
		return
	}
	allowed := 0
	for range b.N {
		if allow() {
			allowed++
		}
	}
	report(b, cnt, base, cpu0, allowed)
}

func BenchmarkAllow(b *testing.B) {
	b.Run("r4credis", func(b *testing.B) { benchR4credis(b, 1, false) })
	b.Run("r4credis-lease10", func(b *testing.B) { benchR4credis(b, 10, false) })
	b.Run("r4credis-lease100", func(b *testing.B) { benchR4credis(b, 100, false) })
	b.Run("redis_rate", func(b *testing.B) { benchRedisRate(b, false, false) })
	b.Run("redis_rate-deadline", func(b *testing.B) { benchRedisRate(b, false, true) })
}

func BenchmarkAllowParallel(b *testing.B) {
	b.Run("r4credis", func(b *testing.B) { benchR4credis(b, 1, true) })
	b.Run("r4credis-lease10", func(b *testing.B) { benchR4credis(b, 10, true) })
	b.Run("redis_rate", func(b *testing.B) { benchRedisRate(b, true, false) })
}
