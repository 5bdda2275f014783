// Package bench compares the cost of r4c's policies with the Go libraries
// that do the same work: github.com/failsafe-go/failsafe-go (each policy
// used directly and through its executor), the DefaultLimiter of
// github.com/platinummonkey/go-concurrency-limits, github.com/sony/gobreaker
// and golang.org/x/time/rate.
//
// It is a module of its own (github.com/resilience4cata/r4c/bench) so that
// the r4c module never depends on its peers. The benchmarks live in the
// package's test files; every one is named Benchmark<Group>/lib=<library>
// (for example BenchmarkAdaptiveLimitAdmitted/lib=failsafe-direct), so that
// benchstat can put the libraries side by side. BenchmarkFloor is the floor
// the performance budgets of SPEC.md are measured against: one CAS to take a
// slot, two monotonic clock readings (time.Since of a fixed instant) and one
// atomic add to give the slot back.
//
// Every call runs a capture-free function that returns at once, so the
// figures are the libraries' own overhead. go test ./... runs each benchmark
// body a few times (TestBenchmarksRun) and checks r4c's allocation budgets
// (TestAllocationBudgets); the full run, with benchstat tables and ratios
// rendered into docs/performance.md, is
//
//	cd bench && ./run.sh
//
// (or go run ./cmd/report from this directory; see its -h).
package bench
