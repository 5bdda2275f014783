package adaptivelimit_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// benchEpoch is what BenchmarkFloor measures its monotonic readings from,
// as policy.System does.
var benchEpoch = time.Now()

var (
	floorInFlight atomic.Int64
	floorSink     time.Duration
)

// BenchmarkFloor is the least an admitted call of any adaptive limit can
// cost: a CAS to take a slot, two monotonic clock readings for the
// latency and an atomic add to free the slot. No library code.
func BenchmarkFloor(b *testing.B) {
	b.ReportAllocs()
	const limit = 1 << 20
	for b.Loop() {
		for {
			n := floorInFlight.Load()
			if n >= limit {
				b.Fatal("full")
			}
			if floorInFlight.CompareAndSwap(n, n+1) {
				break
			}
		}
		start := time.Since(benchEpoch)
		end := time.Since(benchEpoch)
		floorSink += end - start
		floorInFlight.Add(-1)
	}
}

func noop(context.Context) (int, error) { return 1, nil }

// BenchmarkBaseline calls the function through an empty chain, the way
// the other benchmarks call it, but with no stage.
func BenchmarkBaseline(b *testing.B) {
	b.ReportAllocs()
	chain := policy.NewChain[int]()
	ctx := context.Background()
	for b.Loop() {
		if _, err := chain.Next(noop, nil).Call(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// benchLimiter returns a limiter on the real clock and a chain of its
// stage, built once as a pipeline builds it.
func benchLimiter(b *testing.B, cfg adaptivelimit.Config) (*adaptivelimit.Limiter, policy.Chain[int]) {
	l, err := adaptivelimit.New(cfg, policy.Env{Instance: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	return l, policy.NewChain(adaptivelimit.Stage[int](l))
}

// admittedConfig keeps every benchmark call admitted: the limit cannot go
// below the number of goroutines.
var admittedConfig = adaptivelimit.Config{MinLimit: 64, InitialLimit: 64, MaxLimit: 128}

// BenchmarkAdmitted is an admitted call through the stage on the real
// clock: take a slot, read the clock, call, read the clock, free the slot
// and record the sample.
func BenchmarkAdmitted(b *testing.B) {
	b.ReportAllocs()
	l, chain := benchLimiter(b, admittedConfig)
	ctx := context.Background()
	for b.Loop() {
		if _, err := chain.Next(noop, nil).Call(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(l.Handle().Snapshot().Windows), "windows")
}

func BenchmarkAdmittedParallel(b *testing.B) {
	b.ReportAllocs()
	_, chain := benchLimiter(b, admittedConfig)
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := chain.Next(noop, nil).Call(ctx); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkStandalone is TryAcquire and Release without a pipeline.
func BenchmarkStandalone(b *testing.B) {
	b.ReportAllocs()
	l, _ := benchLimiter(b, admittedConfig)
	for b.Loop() {
		p, ok := l.TryAcquire()
		if !ok {
			b.Fatal("rejected")
		}
		l.Release(p, adaptivelimit.OutcomeSuccess)
	}
}

// BenchmarkRejected is a call through the stage of a full limit.
func BenchmarkRejected(b *testing.B) {
	b.ReportAllocs()
	l, chain := benchLimiter(b, adaptivelimit.Config{InitialLimit: 1})
	held, _ := l.TryAcquire()
	defer l.Release(held, adaptivelimit.OutcomeIgnore)
	ctx := context.Background()
	for b.Loop() {
		if _, err := chain.Next(noop, nil).Call(ctx); err == nil {
			b.Fatal("admitted")
		}
	}
}

func BenchmarkRejectedParallel(b *testing.B) {
	b.ReportAllocs()
	l, chain := benchLimiter(b, adaptivelimit.Config{InitialLimit: 1})
	held, _ := l.TryAcquire()
	defer l.Release(held, adaptivelimit.OutcomeIgnore)
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := chain.Next(noop, nil).Call(ctx); err == nil {
				b.Error("admitted")
				return
			}
		}
	})
}

// rejectAll is a stage that refuses every call with a preallocated error
// and does nothing else: what any rejection through the chain costs at
// least, whatever the policy.
type rejectAll struct{ err error }

func (r rejectAll) Run(context.Context, policy.Next[int]) (int, policy.Stamp, error) {
	return 0, policy.NoStamp, r.err
}

func (r rejectAll) RunAsync(context.Context, policy.AsyncNext[int]) *futureInt { return nil }

// BenchmarkRejectAllStage measures the chain alone: a stage that returns a
// preallocated error at once. BenchmarkRejected minus this is what the
// adaptive limit itself adds to a rejection.
func BenchmarkRejectAllStage(b *testing.B) {
	b.ReportAllocs()
	chain := policy.NewChain[int](rejectAll{adaptivelimit.ErrLimitExceeded})
	ctx := context.Background()
	for b.Loop() {
		if _, err := chain.Next(noop, nil).Call(ctx); err == nil {
			b.Fatal("admitted")
		}
	}
}

// BenchmarkWindowRecompute is an admitted call that ends a window, per
// algorithm: the call's own cost plus one recompute of the limit.
func BenchmarkWindowRecompute(b *testing.B) {
	for _, alg := range []adaptivelimit.Algorithm{adaptivelimit.Gradient2, adaptivelimit.AIMD,
		adaptivelimit.Vegas, adaptivelimit.Little} {
		b.Run(alg.String(), func(b *testing.B) {
			b.ReportAllocs()
			clk := clocktest.NewManualClock()
			l, err := adaptivelimit.New(adaptivelimit.Config{Algorithm: alg, MinWindowSamples: 1, Window: time.Millisecond},
				policy.Env{Clock: clk})
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				p, ok := l.TryAcquire()
				if !ok {
					b.Fatal("rejected")
				}
				i++
				clk.Advance(time.Millisecond + time.Duration(i%7)*100*time.Microsecond)
				l.Release(p, adaptivelimit.OutcomeSuccess)
			}
		})
	}
}

// BenchmarkStandaloneDrops is TryAcquire and Release where one call in ten
// is a drop: the failure path, where Little also counts the window's drops
// to end it early when they are most of its samples (never here).
func BenchmarkStandaloneDrops(b *testing.B) {
	for _, alg := range []adaptivelimit.Algorithm{adaptivelimit.Gradient2, adaptivelimit.Little} {
		b.Run(alg.String(), func(b *testing.B) {
			b.ReportAllocs()
			cfg := admittedConfig
			cfg.Algorithm = alg
			l, _ := benchLimiter(b, cfg)
			i := 0
			for b.Loop() {
				p, ok := l.TryAcquire()
				if !ok {
					b.Fatal("rejected")
				}
				o := adaptivelimit.OutcomeSuccess
				if i++; i%10 == 0 {
					o = adaptivelimit.OutcomeDrop
				}
				l.Release(p, o)
			}
		})
	}
}
