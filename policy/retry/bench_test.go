package retry_test

import (
	"context"
	"testing"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/retry"
)

func okFn(context.Context) (int, error) { return 1, nil }

var sink int

func mustRetry(b testing.TB, cfg retry.Config) *retry.Retry {
	r, err := retry.New(cfg, policy.Env{})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkBaseline calls the function directly, so that the retry's
// overhead reads as a difference.
func BenchmarkBaseline(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		v, _ := okFn(ctx)
		sink += v
	}
}

func BenchmarkFirstAttemptSucceeds(b *testing.B) {
	st := retry.Stage[int](mustRetry(b, retry.Config{}))
	ctx := context.Background()
	b.ReportAllocs()
	ch := policy.NewChain[int]()
	for b.Loop() {
		v, _, _ := st.Run(ctx, ch.Next(okFn, nil))
		sink += v
	}
}

func BenchmarkFirstAttemptSucceedsParallel(b *testing.B) {
	st := retry.Stage[int](mustRetry(b, retry.Config{}))
	b.ReportAllocs()
	ch := policy.NewChain[int]()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			st.Run(ctx, ch.Next(okFn, nil))
		}
	})
}

// BenchmarkFirstAttemptSucceedsBudget has a retry budget: each call
// deposits in it, reading the clock once (no inner stage shares a reading).
func BenchmarkFirstAttemptSucceedsBudget(b *testing.B) {
	st := retry.Stage[int](mustRetry(b, retry.Config{BudgetRatio: 0.2}))
	ctx := context.Background()
	b.ReportAllocs()
	ch := policy.NewChain[int]()
	for b.Loop() {
		v, _, _ := st.Run(ctx, ch.Next(okFn, nil))
		sink += v
	}
}

// BenchmarkExhausted retries with no wait and gives up: the cost of the
// decisions and of the ExhaustedError.
func BenchmarkExhausted(b *testing.B) {
	st := retry.Stage[int](mustRetry(b, retry.Config{Jitter: retry.JitterFull, Rand: func() float64 { return 0 }}))
	ctx := context.Background()
	fail := func(context.Context) (int, error) { return 0, errBoom }
	b.ReportAllocs()
	ch := policy.NewChain[int]()
	for b.Loop() {
		st.Run(ctx, ch.Next(fail, nil))
	}
}
