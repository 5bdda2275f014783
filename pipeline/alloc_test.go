package pipeline_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// fullPipeline is the synchronous pipeline of the performance budget: rate
// limiter, adaptive limit, bulkhead, breaker with slow-call tracking, retry,
// on the real clock.
func fullPipeline(tb testing.TB, reg *r4c.Registry) *pipeline.Pipeline[int] {
	tb.Helper()
	p, err := pipeline.NewBuilder[int](reg, "full").
		RateLimit(func(c *ratelimit.Config) { c.Limit = 1 << 30; c.Period = 2 * time.Second; c.Burst = 1 << 30 }).
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1000; c.MaxLimit = 1000 }).
		Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = 1000 }).
		Breaker(func(c *breaker.Config) { c.SlowCallDuration = time.Second }).
		Retry(nil).
		Build()
	require.NoError(tb, err)
	return p
}

func adaptiveOnly(tb testing.TB, reg *r4c.Registry, initial int) *pipeline.Pipeline[int] {
	tb.Helper()
	p, err := pipeline.NewBuilder[int](reg, "adaptive").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = initial; c.MinLimit = initial }).
		Build()
	require.NoError(tb, err)
	return p
}

// occupy holds every slot of a limit of one, for rejection paths.
func occupy(tb testing.TB, p *pipeline.Pipeline[int]) (release func()) {
	rel := make(chan struct{})
	entered := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = p.Execute(func() (int, error) { close(entered); <-rel; return 0, nil })
	}()
	<-entered
	return func() { close(rel); <-done }
}

var epoch = time.Now()

// BenchmarkFloor is the least an admitted adaptive-limit call can cost: a
// CAS acquire, two monotonic clock reads and an atomic release.
func BenchmarkFloor(b *testing.B) {
	b.ReportAllocs()
	var inflight atomic.Int64
	var sink time.Duration
	for b.Loop() {
		for {
			n := inflight.Load()
			if inflight.CompareAndSwap(n, n+1) {
				break
			}
		}
		start := time.Since(epoch)
		sink += time.Since(epoch) - start
		inflight.Add(-1)
	}
	_ = sink
}

func BenchmarkAdaptiveLimitAdmitted(b *testing.B) {
	p := adaptiveOnly(b, newReg(b), 20)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = p.Execute(ok)
	}
}

func BenchmarkAdaptiveLimitAdmittedParallel(b *testing.B) {
	p := adaptiveOnly(b, newReg(b), 1000)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _ = p.Execute(ok)
		}
	})
}

func BenchmarkAdaptiveLimitRejected(b *testing.B) {
	p := adaptiveOnly(b, newReg(b), 1)
	release := occupy(b, p)
	defer release()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = p.Execute(ok)
	}
}

func BenchmarkFullPipeline(b *testing.B) {
	p := fullPipeline(b, newReg(b))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = p.Execute(ok)
	}
}

func BenchmarkFullPipelineParallel(b *testing.B) {
	p := fullPipeline(b, newReg(b))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _ = p.Execute(ok)
		}
	})
}

func BenchmarkExecuteContext(b *testing.B) {
	p := adaptiveOnly(b, newReg(b), 20)
	ctx := context.Background()
	fn := func(context.Context) (int, error) { return 1, nil }
	b.ReportAllocs()
	for b.Loop() {
		_, _ = p.ExecuteContext(ctx, fn)
	}
}
