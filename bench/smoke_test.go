package bench_test

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// singles lists the benchmarks that are not groups.
var singles = []struct {
	name string
	fn   func(*testing.B)
}{
	{"Baseline", BenchmarkBaseline},
	{"Floor", BenchmarkFloor},
	{"FloorParallel", BenchmarkFloorParallel},
	{"DeadlineContext", BenchmarkDeadlineContext},
}

// TestBenchmarksRun runs every benchmark body a few times, each library's
// variant on its own, so that CI catches a benchmark that no longer builds
// its objects, is rejected where it should be admitted, or the reverse. (A
// failing body's message is not shown: testing.Benchmark discards it; run
// the benchmark itself to see it.)
func TestBenchmarksRun(t *testing.T) {
	bt := flag.Lookup("test.benchtime")
	if bt == nil {
		t.Fatal("no -test.benchtime flag")
	}
	old := bt.Value.String()
	if err := bt.Value.Set("3x"); err != nil {
		t.Fatal(err)
	}
	defer bt.Value.Set(old)
	check := func(t *testing.T, fn func(*testing.B)) {
		if r := testing.Benchmark(fn); r.N == 0 {
			t.Fatal("the benchmark failed; run it with go test -bench to see why")
		}
	}
	for _, s := range singles {
		t.Run(s.name, func(t *testing.T) { check(t, s.fn) })
	}
	for _, g := range groups {
		g.variants(func(lib string, fn func(*testing.B)) {
			t.Run(g.name+"/lib="+lib, func(t *testing.T) { check(t, fn) })
		})
	}
}
