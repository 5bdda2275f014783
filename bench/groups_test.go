package bench_test

import "testing"

// runFunc runs one library's variant of a benchmark group under the name
// lib (the part after "lib=" in the benchmark's name).
type runFunc func(lib string, fn func(*testing.B))

// group is a benchmark group: the same work done by several libraries.
type group struct {
	name     string
	variants func(runFunc)
}

// groups lists every group, in the order of docs/performance.md.
var groups = []group{
	{"AdaptiveLimitAdmitted", groupAdaptiveLimitAdmitted},
	{"AdaptiveLimitParallel", groupAdaptiveLimitParallel},
	{"AdaptiveLimitRejected", groupAdaptiveLimitRejected},
	{"BulkheadAdmitted", groupBulkheadAdmitted},
	{"BulkheadRejected", groupBulkheadRejected},
	{"RateLimitAllowed", groupRateLimitAllowed},
	{"RateLimitRejected", groupRateLimitRejected},
	{"BreakerSuccess", groupBreakerSuccess},
	{"RetrySuccess", groupRetrySuccess},
	{"TimeoutSuccess", groupTimeoutSuccess},
	{"Pipeline", groupPipeline},
	{"PipelineTimeout", groupPipelineTimeout},
	{"PipelineParallel", groupPipelineParallel},
}

// benchVariants runs each variant as the sub-benchmark lib=<name>.
func benchVariants(b *testing.B, variants func(runFunc)) {
	variants(func(lib string, fn func(*testing.B)) { b.Run("lib="+lib, withCPUTime(fn)) })
}

// withCPUTime adds the metric cpu-ns/op to fn: the CPU time the process
// used per call (all threads, setup included), which, unlike ns/op, does
// not grow when other processes take the machine's cores. For a parallel
// benchmark it is the CPU cost of a call summed over the Ps.
func withCPUTime(fn func(*testing.B)) func(*testing.B) {
	return func(b *testing.B) {
		start, ok := cpuTime()
		fn(b)
		end, ok2 := cpuTime()
		if ok && ok2 && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func BenchmarkAdaptiveLimitAdmitted(b *testing.B) { benchVariants(b, groupAdaptiveLimitAdmitted) }
func BenchmarkAdaptiveLimitParallel(b *testing.B) { benchVariants(b, groupAdaptiveLimitParallel) }
func BenchmarkAdaptiveLimitRejected(b *testing.B) { benchVariants(b, groupAdaptiveLimitRejected) }
func BenchmarkBulkheadAdmitted(b *testing.B)      { benchVariants(b, groupBulkheadAdmitted) }
func BenchmarkBulkheadRejected(b *testing.B)      { benchVariants(b, groupBulkheadRejected) }
func BenchmarkRateLimitAllowed(b *testing.B)      { benchVariants(b, groupRateLimitAllowed) }
func BenchmarkRateLimitRejected(b *testing.B)     { benchVariants(b, groupRateLimitRejected) }
func BenchmarkBreakerSuccess(b *testing.B)        { benchVariants(b, groupBreakerSuccess) }
func BenchmarkRetrySuccess(b *testing.B)          { benchVariants(b, groupRetrySuccess) }
func BenchmarkTimeoutSuccess(b *testing.B)        { benchVariants(b, groupTimeoutSuccess) }
func BenchmarkPipeline(b *testing.B)              { benchVariants(b, groupPipeline) }
func BenchmarkPipelineTimeout(b *testing.B)       { benchVariants(b, groupPipelineTimeout) }
func BenchmarkPipelineParallel(b *testing.B)      { benchVariants(b, groupPipelineParallel) }
