package future_test

import (
	"context"
	"testing"

	"github.com/resilience4cata/r4c/future"
)

func BenchmarkPromiseCompleteGet(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p := future.NewPromise[int]()
		p.Complete(1)
		_, _ = p.Future().Get(ctx)
	}
}

func BenchmarkPromiseOnCompleteCompleteGet(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	sink := 0
	cb := func(v int, _ error) { sink += v }
	for b.Loop() {
		p := future.NewPromise[int]()
		p.Future().OnComplete(cb)
		p.Complete(1)
		_, _ = p.Future().Get(ctx)
	}
}

func BenchmarkGetCompleted(b *testing.B) {
	ctx := context.Background()
	f := future.Completed(1)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = f.Get(ctx)
	}
}
