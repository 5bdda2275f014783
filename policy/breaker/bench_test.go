package breaker_test

import (
	"context"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/breaker"
)

func okFn(context.Context) (int, error) { return 1, nil }

var sink int

func mustBreaker(b testing.TB, cfg breaker.Config) *breaker.Breaker {
	br, err := breaker.New(cfg, policy.Env{})
	if err != nil {
		b.Fatal(err)
	}
	return br
}

// ended is an inner stage that returns an end reading without reading the
// clock, as an adaptive limit inside the breaker would.
type ended struct{}

func (ended) Run(ctx context.Context, next policy.Next[int]) (int, policy.Stamp, error) {
	v, _, err := next.Run(ctx)
	return v, policy.Stamp(next.Start.At() + 1000), err
}

func (ended) RunAsync(ctx context.Context, next policy.AsyncNext[int]) *future.Future[int] {
	return next.Call(ctx)
}

// BenchmarkBaseline calls the function directly, so that the breaker's
// overhead reads as a difference.
func BenchmarkBaseline(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		v, _ := okFn(ctx)
		sink += v
	}
}

// BenchmarkSuccess is a closed breaker alone: it reads the clock twice.
func BenchmarkSuccess(b *testing.B) {
	st := breaker.Stage[int](mustBreaker(b, breaker.Config{}))
	ch := policy.NewChain[int]() // no links: the stage under test runs outside it
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		v, _, _ := st.Run(ctx, ch.Next(okFn, nil))
		sink += v
	}
}

// BenchmarkSuccessSharedReadings gets its start from outside and its end
// from inside, as in a pipeline: the breaker's own overhead, no clock read.
func BenchmarkSuccessSharedReadings(b *testing.B) {
	st := breaker.Stage[int](mustBreaker(b, breaker.Config{}))
	ch := policy.NewChain[int](ended{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		v, _, _ := st.Run(ctx, ch.Next(okFn, nil).WithStart(1))
		sink += v
	}
}

// BenchmarkSharedReadingsBaseline is the same chain without the breaker.
func BenchmarkSharedReadingsBaseline(b *testing.B) {
	var st policy.Link[int] = ended{}
	ch := policy.NewChain[int]() // no links: the stage under test runs outside it
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		v, _, _ := st.Run(ctx, ch.Next(okFn, nil).WithStart(1))
		sink += v
	}
}

func BenchmarkSuccessParallel(b *testing.B) {
	st := breaker.Stage[int](mustBreaker(b, breaker.Config{}))
	ch := policy.NewChain[int](ended{})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			st.Run(ctx, ch.Next(okFn, nil).WithStart(1))
		}
	})
}

func BenchmarkSuccessTimeBased(b *testing.B) {
	st := breaker.Stage[int](mustBreaker(b, breaker.Config{WindowType: breaker.TimeBased}))
	ch := policy.NewChain[int](ended{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		v, _, _ := st.Run(ctx, ch.Next(okFn, nil).WithStart(1))
		sink += v
	}
}

// BenchmarkRejected is an open breaker: one clock reading (to see whether
// OpenFor has passed) and a preallocated error.
func BenchmarkRejected(b *testing.B) {
	br := mustBreaker(b, breaker.Config{OpenFor: time.Hour})
	br.TransitionToOpen()
	st := breaker.Stage[int](br)
	ch := policy.NewChain[int]() // no links: the stage under test runs outside it
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		st.Run(ctx, ch.Next(okFn, nil))
	}
}

func BenchmarkRejectedForcedOpen(b *testing.B) {
	br := mustBreaker(b, breaker.Config{})
	br.TransitionToForcedOpen()
	st := breaker.Stage[int](br)
	ch := policy.NewChain[int]() // no links: the stage under test runs outside it
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		st.Run(ctx, ch.Next(okFn, nil))
	}
}

// BenchmarkAllowRecord is the standalone two-step API: two clock reads.
func BenchmarkAllowRecord(b *testing.B) {
	br := mustBreaker(b, breaker.Config{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p, err := br.Allow()
		br.Record(ctx, p, err)
	}
}
