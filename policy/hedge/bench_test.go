package hedge_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/hedge"
)

func fast(context.Context) (int, error) { return 1, nil }

func newBenchHedge(b *testing.B, cfg hedge.Config) policy.Link[int] {
	h, err := hedge.New(cfg, policy.Env{})
	if err != nil {
		b.Fatal(err)
	}
	return hedge.Stage[int](h)
}

// BenchmarkBaseline calls the function directly.
func BenchmarkBaseline(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		_, _ = fast(ctx)
	}
}

func BenchmarkDisabled(b *testing.B) {
	b.ReportAllocs()
	s := newBenchHedge(b, hedge.Config{Disabled: true})
	ctx := context.Background()
	ch := policy.NewChain[int]()
	for b.Loop() {
		_, _, _ = s.Run(ctx, ch.Next(fast, nil))
	}
}

// BenchmarkFirstWins: the first attempt answers before the delay, the
// usual case. The cost is a goroutine, a context and a timer.
func BenchmarkFirstWins(b *testing.B) {
	b.ReportAllocs()
	s := newBenchHedge(b, hedge.Config{Delay: time.Second})
	ctx := context.Background()
	ch := policy.NewChain[int]()
	for b.Loop() {
		_, _, _ = s.Run(ctx, ch.Next(fast, nil))
	}
}

func BenchmarkFirstWinsParallel(b *testing.B) {
	b.ReportAllocs()
	s := newBenchHedge(b, hedge.Config{Delay: time.Second})
	ch := policy.NewChain[int]()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			_, _, _ = s.Run(ctx, ch.Next(fast, nil))
		}
	})
}

// BenchmarkHedgeWins: the first attempt hangs until cancelled and the
// hedge, started after a 1µs delay, answers.
func BenchmarkHedgeWins(b *testing.B) {
	b.ReportAllocs()
	s := newBenchHedge(b, hedge.Config{Delay: time.Microsecond})
	var first atomic.Bool
	fn := func(ctx context.Context) (int, error) {
		if first.CompareAndSwap(true, false) {
			<-ctx.Done()
			return 0, ctx.Err()
		}
		return 2, nil
	}
	ctx := context.Background()
	ch := policy.NewChain[int]()
	for b.Loop() {
		first.Store(true)
		if v, _, _ := s.Run(ctx, ch.Next(fn, nil)); v != 2 {
			b.Fatal("the hedge did not win")
		}
	}
}

// BenchmarkAsyncFirstWins: an asynchronous call whose future completes
// after RunAsync returned, before the delay.
func BenchmarkAsyncFirstWins(b *testing.B) {
	b.ReportAllocs()
	s := newBenchHedge(b, hedge.Config{Delay: time.Second})
	ctx := context.Background()
	var pr *future.Promise[int]
	fn := func(context.Context) *future.Future[int] {
		pr = future.NewPromise[int]()
		return pr.Future()
	}
	ch := policy.NewChain[int]()
	for b.Loop() {
		f := s.RunAsync(ctx, ch.AsyncNext(fn))
		pr.Complete(1)
		_, _ = f.Get(ctx)
	}
}

// BenchmarkAsyncOverAtOnce: an asynchronous call whose first attempt is
// over when it returns (a rejection by a policy inside the hedge, a cached
// value): nothing to hedge.
func BenchmarkAsyncOverAtOnce(b *testing.B) {
	b.ReportAllocs()
	s := newBenchHedge(b, hedge.Config{Delay: time.Second})
	ctx := context.Background()
	done := future.Completed(1)
	fn := func(context.Context) *future.Future[int] { return done }
	ch := policy.NewChain[int]()
	for b.Loop() {
		f := s.RunAsync(ctx, ch.AsyncNext(fn))
		_, _ = f.Get(ctx)
	}
}
