package bench_test

import (
	"sync/atomic"
	"testing"
	"time"
)

// floorEpoch is the fixed instant the floor's monotonic readings are taken
// from, as r4c's system clock does.
var floorEpoch = time.Now()

// floorSlots is the floor's slot counter, on a cache line of its own.
type floorSlots struct {
	_ [128]byte
	n atomic.Int64
	_ [120]byte
}

// BenchmarkBaseline calls the work directly: what any library adds is the
// difference from this.
func BenchmarkBaseline(b *testing.B) { withCPUTime(benchmarkBaseline)(b) }

func benchmarkBaseline(b *testing.B) {
	b.ReportAllocs()
	var acc int
	for i := 0; i < b.N; i++ {
		v, err := work()
		if err != nil {
			b.Fatal(err)
		}
		acc += v
	}
	sink.Add(int64(acc))
}

// BenchmarkFloor is the least an admitted adaptive-limit call can cost: a CAS
// that takes a slot under a limit, a monotonic clock reading, the work,
// another reading, and an atomic add that gives the slot back. SPEC.md's
// budgets are ratios to this.
func BenchmarkFloor(b *testing.B) { withCPUTime(benchmarkFloor)(b) }

func benchmarkFloor(b *testing.B) {
	b.ReportAllocs()
	s := new(floorSlots)
	var lat time.Duration
	for i := 0; i < b.N; i++ {
		for {
			n := s.n.Load()
			if n >= maxLimit {
				b.Fatal("floor: limit reached")
			}
			if s.n.CompareAndSwap(n, n+1) {
				break
			}
		}
		start := time.Since(floorEpoch)
		v, err := work()
		end := time.Since(floorEpoch)
		if err != nil {
			b.Fatal(err)
		}
		lat += end - start + time.Duration(v)
		s.n.Add(-1)
	}
	sink.Add(int64(lat))
}

// BenchmarkFloorParallel is BenchmarkFloor on every P, all sharing one slot
// counter: the floor of the parallel benchmarks.
func BenchmarkFloorParallel(b *testing.B) { withCPUTime(benchmarkFloorParallel)(b) }

func benchmarkFloorParallel(b *testing.B) {
	b.ReportAllocs()
	s := new(floorSlots)
	var over atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		var lat time.Duration
		for pb.Next() {
			for {
				n := s.n.Load()
				if n >= maxLimit {
					over.Add(1)
					break
				}
				if s.n.CompareAndSwap(n, n+1) {
					break
				}
			}
			start := time.Since(floorEpoch)
			v, _ := work()
			end := time.Since(floorEpoch)
			lat += end - start + time.Duration(v)
			s.n.Add(-1)
		}
		sink.Add(int64(lat))
	})
	mustNotFail(b, over.Load())
}

// mustNotFail fails b when a parallel benchmark saw failures (counted, since
// b.Fatal cannot be called from RunParallel's goroutines).
func mustNotFail(b *testing.B, failures int64) {
	b.Helper()
	if failures != 0 {
		b.Fatalf("%d calls failed or were rejected", failures)
	}
}
