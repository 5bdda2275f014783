package bench_test

import (
	"sync/atomic"
	"testing"
)

// BenchmarkPipeline: the full synchronous pipeline on the success path:
// rate limiter, adaptive limit, bulkhead, breaker with slow-call tracking
// and retry (r4c), against failsafe-go's executor composed of the same
// policies in the same order (its breaker has no slow-call tracking).
func groupPipeline(run runFunc) {
	run("r4c", func(b *testing.B) { runPipeline(b, r4cFull(b, nil)) })
	run("failsafe-executor", func(b *testing.B) { runExecutor(b, fsFull(false)) })
}

// BenchmarkPipelineTimeout is BenchmarkPipeline with a 1 s timeout inside
// the adaptive limit (six policies), the call made with a ctx.
func groupPipelineTimeout(run runFunc) {
	run("r4c", func(b *testing.B) { runPipelineContext(b, r4cFull(b, timeoutDefault)) })
	run("r4c-cooperative", func(b *testing.B) { runPipelineContext(b, r4cFull(b, timeoutCooperative)) })
	run("failsafe-executor", func(b *testing.B) { runExecutor(b, fsFull(true)) })
}

// BenchmarkPipelineParallel is BenchmarkPipeline on every P, through one
// shared pipeline.
func groupPipelineParallel(run runFunc) {
	run("r4c", func(b *testing.B) {
		b.ReportAllocs()
		p := r4cFull(b, nil)
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
	run("failsafe-executor", func(b *testing.B) {
		b.ReportAllocs()
		e := fsFull(false)
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
}
