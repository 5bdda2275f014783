package timeout_test

import (
	"context"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/timeout"
)

var fn = func(context.Context) (string, error) { return "ok", nil }

// BenchmarkBaseline calls the function through an empty chain: the
// overhead of the timeout reads as the difference.
func BenchmarkBaseline(b *testing.B) {
	ch := policy.NewChain[string]()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = ch.Next(fn, nil).Run(ctx)
	}
}

// BenchmarkDeadlineContext is the floor: a deadline context on the real
// clock, its Done channel, and its cancel.
func BenchmarkDeadlineContext(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		c, cancel := policy.System.WithDeadline(ctx, time.Now().Add(time.Hour))
		_ = c.Done()
		cancel()
	}
}

func benchStage(b *testing.B, coop, parallel bool) {
	to, err := timeout.New(timeout.Config{Timeout: time.Hour, Cooperative: coop}, policy.Env{})
	if err != nil {
		b.Fatal(err)
	}
	ch := policy.NewChain(timeout.Stage[string](to))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	if parallel {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_, _, _ = ch.Next(fn, nil).Run(ctx)
			}
		})
		return
	}
	for b.Loop() {
		_, _, _ = ch.Next(fn, nil).Run(ctx)
	}
}

func BenchmarkCooperative(b *testing.B)         { benchStage(b, true, false) }
func BenchmarkDefault(b *testing.B)             { benchStage(b, false, false) }
func BenchmarkCooperativeParallel(b *testing.B) { benchStage(b, true, true) }
func BenchmarkDefaultParallel(b *testing.B)     { benchStage(b, false, true) }
