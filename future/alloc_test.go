package future_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/future"
)

func TestGetAndDoneAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	ctx := context.Background()
	f := future.Completed(1)
	allocs := testing.AllocsPerRun(1000, func() {
		<-f.Done()
		if v, err := f.Get(ctx); v != 1 || err != nil {
			t.Fatal(v, err)
		}
		_ = f.Cancel()
	})
	assert.Zero(t, allocs)
}

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
