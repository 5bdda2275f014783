package bench_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/failsafe-go/failsafe-go"
	fsadaptive "github.com/failsafe-go/failsafe-go/adaptivelimiter"
	gcllimiter "github.com/platinummonkey/go-concurrency-limits/limiter"

	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// BenchmarkAdaptiveLimitAdmitted: one goroutine, every call admitted, the
// limit far from full.
func groupAdaptiveLimitAdmitted(run runFunc) {
	ctx := context.Background()
	run("r4c-core", func(b *testing.B) {
		b.ReportAllocs()
		l := r4cLimiter(b, adaptiveAdmitted)
		var acc int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p, ok := l.TryAcquire()
			if !ok {
				b.Fatal("rejected")
			}
			v, err := work()
			l.Release(p, l.Classify(ctx, err))
			acc += v
		}
		sink.Add(int64(acc))
	})
	run("r4c-pipeline", func(b *testing.B) {
		b.ReportAllocs()
		p := r4cBuild(b, pipeline.NewBuilder[int](r4cRegistry(b), "al").AdaptiveLimit(adaptiveAdmitted))
		var acc int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			v, err := p.Execute(work)
			if err != nil {
				b.Fatal(err)
			}
			acc += v
		}
		sink.Add(int64(acc))
	})
	run("failsafe-direct", func(b *testing.B) {
		b.ReportAllocs()
		l := fsAdaptive(minLimit, initialLimit, maxLimit)
		var acc int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p, ok := l.TryAcquirePermit()
			if !ok {
				b.Fatal("rejected")
			}
			v, err := work()
			if err != nil {
				p.Drop()
			} else {
				p.Record()
			}
			acc += v
		}
		sink.Add(int64(acc))
	})
	run("failsafe-executor", func(b *testing.B) {
		b.ReportAllocs()
		e := failsafe.With[int](fsAdaptive(minLimit, initialLimit, maxLimit))
		var acc int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			v, err := e.Get(work)
			if err != nil {
				b.Fatal(err)
			}
			acc += v
		}
		sink.Add(int64(acc))
	})
	gcl := func(b *testing.B, l *gcllimiter.DefaultLimiter) {
		b.ReportAllocs()
		var acc int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			lis, ok := l.Acquire(ctx)
			if !ok {
				b.Fatal("rejected")
			}
			v, err := work()
			if err != nil {
				lis.OnIgnore()
			} else {
				lis.OnSuccess()
			}
			acc += v
		}
		sink.Add(int64(acc))
	}
	run("gcl-gradient2", func(b *testing.B) { gcl(b, gclGradient2(b, minLimit, initialLimit, maxLimit)) })
	run("gcl-aimd", func(b *testing.B) { gcl(b, gclAIMD(b, initialLimit)) })
}

// BenchmarkAdaptiveLimitParallel: every P calls through one shared limit.
func groupAdaptiveLimitParallel(run runFunc) {
	ctx := context.Background()
	run("r4c-core", func(b *testing.B) {
		b.ReportAllocs()
		l := r4cLimiter(b, adaptiveAdmitted)
		var failed atomic.Int64
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			var acc int
			for pb.Next() {
				p, ok := l.TryAcquire()
				if !ok {
					failed.Add(1)
					continue
				}
				v, err := work()
				l.Release(p, l.Classify(ctx, err))
				acc += v
			}
			sink.Add(int64(acc))
		})
		mustNotFail(b, failed.Load())
	})
	run("r4c-pipeline", func(b *testing.B) {
		b.ReportAllocs()
		p := r4cBuild(b, pipeline.NewBuilder[int](r4cRegistry(b), "al").AdaptiveLimit(adaptiveAdmitted))
		var failed atomic.Int64
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			var acc int
			for pb.Next() {
				v, err := p.Execute(work)
				if err != nil {
					failed.Add(1)
				}
				acc += v
			}
			sink.Add(int64(acc))
		})
		mustNotFail(b, failed.Load())
	})
	run("failsafe-direct", func(b *testing.B) {
		b.ReportAllocs()
		l := fsAdaptive(minLimit, initialLimit, maxLimit)
		var failed atomic.Int64
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			var acc int
			for pb.Next() {
				p, ok := l.TryAcquirePermit()
				if !ok {
					failed.Add(1)
					continue
				}
				v, err := work()
				if err != nil {
					p.Drop()
				} else {
					p.Record()
				}
				acc += v
			}
			sink.Add(int64(acc))
		})
		mustNotFail(b, failed.Load())
	})
	run("failsafe-executor", func(b *testing.B) {
		b.ReportAllocs()
		e := failsafe.With[int](fsAdaptive(minLimit, initialLimit, maxLimit))
		var failed atomic.Int64
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			var acc int
			for pb.Next() {
				v, err := e.Get(work)
				if err != nil {
					failed.Add(1)
				}
				acc += v
			}
			sink.Add(int64(acc))
		})
		mustNotFail(b, failed.Load())
	})
	gcl := func(b *testing.B, l *gcllimiter.DefaultLimiter) {
		b.ReportAllocs()
		var failed atomic.Int64
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			var acc int
			for pb.Next() {
				lis, ok := l.Acquire(ctx)
				if !ok {
					failed.Add(1)
					continue
				}
				v, err := work()
				if err != nil {
					lis.OnIgnore()
				} else {
					lis.OnSuccess()
				}
				acc += v
			}
			sink.Add(int64(acc))
		})
		mustNotFail(b, failed.Load())
	}
	run("gcl-gradient2", func(b *testing.B) { gcl(b, gclGradient2(b, minLimit, initialLimit, maxLimit)) })
	run("gcl-aimd", func(b *testing.B) { gcl(b, gclAIMD(b, initialLimit)) })
}

// BenchmarkAdaptiveLimitRejected: a limit of one, held for the whole
// benchmark, so that every call is rejected.
func groupAdaptiveLimitRejected(run runFunc) {
	ctx := context.Background()
	run("r4c-core", func(b *testing.B) {
		b.ReportAllocs()
		l := r4cLimiter(b, adaptiveOne)
		held, ok := l.TryAcquire()
		if !ok {
			b.Fatal("could not take the only slot")
		}
		defer l.Release(held, adaptivelimit.OutcomeIgnore)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, ok := l.TryAcquire(); ok {
				b.Fatal("admitted")
			}
		}
	})
	run("r4c-pipeline", func(b *testing.B) {
		b.ReportAllocs()
		p := r4cBuild(b, pipeline.NewBuilder[int](r4cRegistry(b), "al").AdaptiveLimit(adaptiveOne))
		defer holdSlot(b, p)()
		rejectPipeline(b, p, adaptivelimit.ErrLimitExceeded)
	})
	run("failsafe-direct", func(b *testing.B) {
		b.ReportAllocs()
		l := fsAdaptive(1, 1, 1)
		held, ok := l.TryAcquirePermit()
		if !ok {
			b.Fatal("could not take the only permit")
		}
		defer held.Drop()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, ok := l.TryAcquirePermit(); ok {
				b.Fatal("admitted")
			}
		}
	})
	run("failsafe-executor", func(b *testing.B) {
		b.ReportAllocs()
		l := fsAdaptive(1, 1, 1)
		held, ok := l.TryAcquirePermit()
		if !ok {
			b.Fatal("could not take the only permit")
		}
		defer held.Drop()
		rejectExecutor(b, failsafe.With[int](l), fsadaptive.ErrExceeded)
	})
	gcl := func(b *testing.B, l *gcllimiter.DefaultLimiter) {
		b.ReportAllocs()
		held, ok := l.Acquire(ctx)
		if !ok {
			b.Fatal("could not take the only slot")
		}
		defer held.OnIgnore()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, ok := l.Acquire(ctx); ok {
				b.Fatal("admitted")
			}
		}
	}
	run("gcl-gradient2", func(b *testing.B) { gcl(b, gclGradient2(b, 1, 1, 1)) })
	run("gcl-aimd", func(b *testing.B) { gcl(b, gclAIMD(b, 1)) })
}
