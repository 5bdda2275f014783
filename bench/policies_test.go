package bench_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	fsbulkhead "github.com/failsafe-go/failsafe-go/bulkhead"
	fsrate "github.com/failsafe-go/failsafe-go/ratelimiter"

	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// runPipeline runs p.Execute(work) b.N times; every call must succeed.
func runPipeline(b *testing.B, p *pipeline.Pipeline[int]) {
	b.Helper()
	b.ReportAllocs()
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
}

// runPipelineContext runs p.ExecuteContext(ctx, workCtx) b.N times.
func runPipelineContext(b *testing.B, p *pipeline.Pipeline[int]) {
	b.Helper()
	b.ReportAllocs()
	ctx := context.Background()
	var acc int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := p.ExecuteContext(ctx, workCtx)
		if err != nil {
			b.Fatal(err)
		}
		acc += v
	}
	sink.Add(int64(acc))
}

// runExecutor runs e.Get(work) b.N times; every call must succeed.
func runExecutor(b *testing.B, e failsafe.Executor[int]) {
	b.Helper()
	b.ReportAllocs()
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
}

// rejectPipeline runs p.Execute(work) b.N times; every call must be
// rejected with target.
func rejectPipeline(b *testing.B, p *pipeline.Pipeline[int], target error) {
	b.Helper()
	b.ReportAllocs()
	if _, err := p.Execute(work); !errors.Is(err, target) {
		b.Fatal("not rejected:", err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// errors.Is costs as much as a rejection: checked once above.
		if _, err := p.Execute(work); err == nil {
			b.Fatal("not rejected")
		}
	}
}

// rejectExecutor runs e.Get(work) b.N times; every call must be rejected
// with target.
func rejectExecutor(b *testing.B, e failsafe.Executor[int], target error) {
	b.Helper()
	b.ReportAllocs()
	if _, err := e.Get(work); !errors.Is(err, target) {
		b.Fatal("not rejected:", err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Get(work); err == nil {
			b.Fatal("not rejected")
		}
	}
}

func groupBulkheadAdmitted(run runFunc) {
	run("r4c-core", func(b *testing.B) {
		b.ReportAllocs()
		bh := r4cBulkhead(b, bulkheadAdmitted)
		var acc int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if !bh.TryAcquire() {
				b.Fatal("full")
			}
			v, _ := work()
			bh.Release()
			acc += v
		}
		sink.Add(int64(acc))
	})
	run("r4c-pipeline", func(b *testing.B) {
		runPipeline(b, r4cBuild(b, pipeline.NewBuilder[int](r4cRegistry(b), "bh").Bulkhead(bulkheadAdmitted)))
	})
	run("failsafe-direct", func(b *testing.B) {
		b.ReportAllocs()
		bh := fsBulkhead(bulkheadMax)
		var acc int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if !bh.TryAcquirePermit() {
				b.Fatal("full")
			}
			v, _ := work()
			bh.ReleasePermit()
			acc += v
		}
		sink.Add(int64(acc))
	})
	run("failsafe-executor", func(b *testing.B) {
		runExecutor(b, failsafe.With[int](fsBulkhead(bulkheadMax)))
	})
}

func groupBulkheadRejected(run runFunc) {
	run("r4c-core", func(b *testing.B) {
		b.ReportAllocs()
		bh := r4cBulkhead(b, bulkheadOne)
		if !bh.TryAcquire() {
			b.Fatal("could not take the only slot")
		}
		defer bh.Release()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if bh.TryAcquire() {
				b.Fatal("admitted")
			}
		}
	})
	run("r4c-pipeline", func(b *testing.B) {
		p := r4cBuild(b, pipeline.NewBuilder[int](r4cRegistry(b), "bh").Bulkhead(bulkheadOne))
		defer holdSlot(b, p)()
		rejectPipeline(b, p, bulkhead.ErrFull)
	})
	run("failsafe-direct", func(b *testing.B) {
		b.ReportAllocs()
		bh := fsBulkhead(1)
		if !bh.TryAcquirePermit() {
			b.Fatal("could not take the only permit")
		}
		defer bh.ReleasePermit()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if bh.TryAcquirePermit() {
				b.Fatal("admitted")
			}
		}
	})
	run("failsafe-executor", func(b *testing.B) {
		bh := fsBulkhead(1)
		if !bh.TryAcquirePermit() {
			b.Fatal("could not take the only permit")
		}
		defer bh.ReleasePermit()
		rejectExecutor(b, failsafe.With[int](bh), fsbulkhead.ErrFull)
	})
}

func groupRateLimitAllowed(run runFunc) {
	run("r4c-core", func(b *testing.B) {
		b.ReportAllocs()
		l := r4cRate(b, rateAdmitted)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if !l.Allow() {
				b.Fatal("rate limited")
			}
		}
	})
	run("r4c-pipeline", func(b *testing.B) {
		runPipeline(b, r4cBuild(b, pipeline.NewBuilder[int](r4cRegistry(b), "rl").RateLimit(rateAdmitted)))
	})
	run("xrate", func(b *testing.B) {
		b.ReportAllocs()
		l := xrateAdmitted()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if !l.Allow() {
				b.Fatal("rate limited")
			}
		}
	})
	run("failsafe-direct", func(b *testing.B) {
		b.ReportAllocs()
		l := fsRateAdmitted()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if !l.TryAcquirePermit() {
				b.Fatal("rate limited")
			}
		}
	})
	run("failsafe-executor", func(b *testing.B) {
		runExecutor(b, failsafe.With[int](fsRateAdmitted()))
	})
}

func groupRateLimitRejected(run runFunc) {
	run("r4c-core", func(b *testing.B) {
		b.ReportAllocs()
		l := r4cRate(b, rateOne)
		if !l.Allow() {
			b.Fatal("could not take the only permit")
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if l.Allow() {
				b.Fatal("allowed")
			}
		}
	})
	run("r4c-pipeline", func(b *testing.B) {
		p := r4cBuild(b, pipeline.NewBuilder[int](r4cRegistry(b), "rl").RateLimit(rateOne))
		if _, err := p.Execute(work); err != nil {
			b.Fatal(err)
		}
		rejectPipeline(b, p, ratelimit.ErrRateLimited)
	})
	run("xrate", func(b *testing.B) {
		b.ReportAllocs()
		l := xrateOne()
		if !l.Allow() {
			b.Fatal("could not take the only permit")
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if l.Allow() {
				b.Fatal("allowed")
			}
		}
	})
	run("failsafe-direct", func(b *testing.B) {
		b.ReportAllocs()
		l := fsRateOne()
		if !l.TryAcquirePermit() {
			b.Fatal("could not take the only permit")
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if l.TryAcquirePermit() {
				b.Fatal("allowed")
			}
		}
	})
	run("failsafe-executor", func(b *testing.B) {
		l := fsRateOne()
		if !l.TryAcquirePermit() {
			b.Fatal("could not take the only permit")
		}
		rejectExecutor(b, failsafe.With[int](l), fsrate.ErrExceeded)
	})
}

// BenchmarkBreakerSuccess: a closed breaker, every call succeeds. r4c's
// breaker tracks slow calls, so it reads the clock twice per call.
func groupBreakerSuccess(run runFunc) {
	ctx := context.Background()
	run("r4c-core", func(b *testing.B) {
		b.ReportAllocs()
		br := r4cBreaker(b)
		var acc int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p, err := br.Allow()
			if err != nil {
				b.Fatal(err)
			}
			v, err := work()
			br.Record(ctx, p, err)
			acc += v
		}
		sink.Add(int64(acc))
	})
	run("r4c-pipeline", func(b *testing.B) {
		runPipeline(b, r4cBuild(b, pipeline.NewBuilder[int](r4cRegistry(b), "cb").Breaker(breakerSlow)))
	})
	run("gobreaker", func(b *testing.B) {
		b.ReportAllocs()
		cb := gobreakerDefault()
		var acc int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			v, err := cb.Execute(work)
			if err != nil {
				b.Fatal(err)
			}
			acc += v
		}
		sink.Add(int64(acc))
	})
	run("failsafe-direct", func(b *testing.B) {
		b.ReportAllocs()
		cb := fsBreaker()
		var acc int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if !cb.TryAcquirePermit() {
				b.Fatal("open")
			}
			v, err := work()
			if err != nil {
				cb.RecordFailure()
			} else {
				cb.RecordSuccess()
			}
			acc += v
		}
		sink.Add(int64(acc))
	})
	run("failsafe-executor", func(b *testing.B) {
		runExecutor(b, failsafe.With[int](fsBreaker()))
	})
}

// BenchmarkRetrySuccess: the first attempt succeeds.
func groupRetrySuccess(run runFunc) {
	run("r4c-core", func(b *testing.B) {
		b.ReportAllocs()
		r := r4cRetry(b)
		ctx := context.Background()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := r.Do(ctx, workErr); err != nil {
				b.Fatal(err)
			}
		}
	})
	run("r4c-pipeline", func(b *testing.B) {
		runPipeline(b, r4cBuild(b, pipeline.NewBuilder[int](r4cRegistry(b), "rt").Retry(retryDefault)))
	})
	run("failsafe-executor", func(b *testing.B) {
		runExecutor(b, failsafe.With[int](fsRetry()))
	})
}

// BenchmarkTimeoutSuccess: a 1 s timeout around a call that returns at once
// and honours its ctx. r4c's default mode runs the call on a goroutine of its
// own so that the caller gets the error at the deadline even if the call
// ignores its ctx; the cooperative mode runs it on the caller's goroutine.
func groupTimeoutSuccess(run runFunc) {
	run("r4c-core", func(b *testing.B) {
		b.ReportAllocs()
		t := r4cTimeout(b, timeoutDefault)
		ctx := context.Background()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := t.Run(ctx, workErr); err != nil {
				b.Fatal(err)
			}
		}
	})
	run("r4c-pipeline", func(b *testing.B) {
		runPipelineContext(b, r4cBuild(b, pipeline.NewBuilder[int](r4cRegistry(b), "to").Timeout(timeoutDefault)))
	})
	run("r4c-pipeline-cooperative", func(b *testing.B) {
		runPipelineContext(b, r4cBuild(b, pipeline.NewBuilder[int](r4cRegistry(b), "to").Timeout(timeoutCooperative)))
	})
	run("failsafe-executor", func(b *testing.B) {
		runExecutor(b, failsafe.With[int](fsTimeout()))
	})
}

// BenchmarkDeadlineContext is what a deadline context costs by itself
// (context.WithTimeout and its cancel): the SPEC allows a timeout stage to
// add no more than this to a pipeline.
func BenchmarkDeadlineContext(b *testing.B) { withCPUTime(deadlineContext)(b) }

func deadlineContext(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		c, cancel := context.WithTimeout(ctx, time.Second)
		if c.Err() != nil {
			b.Fatal(c.Err())
		}
		cancel()
	}
}
