package bulkhead_test

import (
	"context"
	"testing"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
)

func newBulkhead(b *testing.B, max int) *bulkhead.Bulkhead {
	bh, err := bulkhead.New(bulkhead.Config{MaxConcurrent: max}, policy.Env{})
	if err != nil {
		b.Fatal(err)
	}
	return bh
}

var fn = func(context.Context) (string, error) { return "ok", nil }

// BenchmarkBaseline calls the function through an empty chain: the
// overhead of a stage reads as the difference.
func BenchmarkBaseline(b *testing.B) {
	ch := policy.NewChain[string]()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = ch.Next(fn, nil).Run(ctx)
	}
}

func BenchmarkAdmitted(b *testing.B) {
	ch := policy.NewChain(bulkhead.Stage[string](newBulkhead(b, 1)))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = ch.Next(fn, nil).Run(ctx)
	}
}

func BenchmarkRejected(b *testing.B) {
	bh := newBulkhead(b, 1)
	bh.TryAcquire()
	ch := policy.NewChain(bulkhead.Stage[string](bh))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = ch.Next(fn, nil).Run(ctx)
	}
}

func BenchmarkTryAcquireRelease(b *testing.B) {
	bh := newBulkhead(b, 1)
	b.ReportAllocs()
	for b.Loop() {
		bh.TryAcquire()
		bh.Release()
	}
}

// BenchmarkAdmittedParallel: every goroutine gets a slot (no mutex on the
// admitted path; the cost is the shared counter's cache line).
func BenchmarkAdmittedParallel(b *testing.B) {
	ch := policy.NewChain(bulkhead.Stage[string](newBulkhead(b, 1<<20)))
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _, _ = ch.Next(fn, nil).Run(ctx)
		}
	})
}

// BenchmarkContendedParallel: fewer slots than goroutines, fail fast; a
// mix of admitted and rejected calls.
func BenchmarkContendedParallel(b *testing.B) {
	ch := policy.NewChain(bulkhead.Stage[string](newBulkhead(b, 1)))
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _, _ = ch.Next(fn, nil).Run(ctx)
		}
	})
}
