package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"golang.org/x/time/rate"
)

// The limiter against golang.org/x/time/rate on the same work: a limiter
// that always admits (a rate far above the benchmark's) and one that always
// refuses (its only permit taken). Both read the real clock: ours a
// monotonic reading, x/time/rate time.Now, as each does in Allow.

func newOpen(b *testing.B) *ratelimit.Limiter {
	l, err := ratelimit.New(ratelimit.Config{Limit: 1_000_000_000, Period: time.Second}, policy.Env{})
	if err != nil {
		b.Fatal(err)
	}
	return l
}

func newShut(b *testing.B) *ratelimit.Limiter {
	l, err := ratelimit.New(ratelimit.Config{Limit: 1, Period: time.Hour}, policy.Env{})
	if err != nil {
		b.Fatal(err)
	}
	l.Allow()
	return l
}

func BenchmarkAllow(b *testing.B) {
	l := newOpen(b)
	b.ReportAllocs()
	for b.Loop() {
		if !l.Allow() {
			b.Fatal("refused")
		}
	}
}

func BenchmarkXTimeRateAllow(b *testing.B) {
	l := rate.NewLimiter(1e9, 1e9)
	b.ReportAllocs()
	for b.Loop() {
		if !l.Allow() {
			b.Fatal("refused")
		}
	}
}

func BenchmarkAllowRejected(b *testing.B) {
	l := newShut(b)
	b.ReportAllocs()
	for b.Loop() {
		if l.Allow() {
			b.Fatal("admitted")
		}
	}
}

func BenchmarkXTimeRateAllowRejected(b *testing.B) {
	l := rate.NewLimiter(rate.Every(time.Hour), 1)
	l.Allow()
	b.ReportAllocs()
	for b.Loop() {
		if l.Allow() {
			b.Fatal("admitted")
		}
	}
}

// AllowAt and AllowN with a time the caller already has: the algorithms
// alone, without the clock read.
func BenchmarkAllowAt(b *testing.B) {
	l := newOpen(b)
	now := policy.System.Nanotime()
	b.ReportAllocs()
	for b.Loop() {
		now++
		l.AllowAt(now)
	}
}

func BenchmarkXTimeRateAllowN(b *testing.B) {
	l := rate.NewLimiter(1e9, 1e9)
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(1)
		l.AllowN(now, 1)
	}
}

func BenchmarkAllowParallel(b *testing.B) {
	l := newOpen(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Allow()
		}
	})
}

func BenchmarkXTimeRateAllowParallel(b *testing.B) {
	l := rate.NewLimiter(1e9, 1e9)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Allow()
		}
	})
}

// The stage in a chain, alone and with a start reading from an outer stage.
func BenchmarkStageAdmitted(b *testing.B) {
	ch := policy.NewChain(ratelimit.Stage[string](newOpen(b)))
	fn := func(context.Context) (string, error) { return "ok", nil }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = ch.Next(fn, nil).Run(ctx)
	}
}

func BenchmarkStageAdmittedSharedReading(b *testing.B) {
	ch := policy.NewChain(ratelimit.Stage[string](newOpen(b)))
	fn := func(context.Context) (string, error) { return "ok", nil }
	ctx := context.Background()
	now := policy.System.Nanotime()
	b.ReportAllocs()
	for b.Loop() {
		now++
		_, _, _ = ch.Next(fn, nil).WithStart(now).Run(ctx)
	}
}

func BenchmarkStageRejected(b *testing.B) {
	ch := policy.NewChain(ratelimit.Stage[string](newShut(b)))
	fn := func(context.Context) (string, error) { return "ok", nil }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = ch.Next(fn, nil).Run(ctx)
	}
}
