//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package adaptivelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

func TestAllocsAdmittedAndRejected(t *testing.T) {
	l, err := adaptivelimit.New(adaptivelimit.Config{InitialLimit: 1, MinLimit: 1, MaxLimit: 1}, policy.Env{})
	if err != nil {
		t.Fatal(err)
	}
	chain := policy.NewChain(adaptivelimit.Stage[int](l))
	ctx := context.Background()
	admitted := testing.AllocsPerRun(1000, func() {
		if _, err := chain.Next(noop, nil).Call(ctx); err != nil {
			t.Fatal(err)
		}
	})
	standalone := testing.AllocsPerRun(1000, func() {
		p, ok := l.TryAcquire()
		if !ok {
			t.Fatal("rejected")
		}
		l.Release(p, adaptivelimit.OutcomeSuccess)
	})
	held, _ := l.TryAcquire()
	rejected := testing.AllocsPerRun(1000, func() {
		if _, err := chain.Next(noop, nil).Call(ctx); err == nil {
			t.Fatal("admitted")
		}
	})
	l.Release(held, adaptivelimit.OutcomeIgnore)
	if admitted != 0 || rejected != 0 || standalone != 0 {
		t.Fatalf("allocs per call: admitted %v, rejected %v, standalone %v; want 0", admitted, rejected, standalone)
	}
}

// TestAllocsWindowRecompute checks that ending a window (the recompute of
// every algorithm) allocates nothing: a manual clock moves past the window
// on every call, so each Release ends one.
func TestAllocsWindowRecompute(t *testing.T) {
	for _, alg := range []adaptivelimit.Algorithm{adaptivelimit.Gradient2, adaptivelimit.AIMD,
		adaptivelimit.Vegas, adaptivelimit.Little} {
		clk := clocktest.NewManualClock()
		l, err := adaptivelimit.New(adaptivelimit.Config{Algorithm: alg, MinWindowSamples: 1, Window: time.Millisecond},
			policy.Env{Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			p, ok := l.TryAcquire()
			if !ok {
				t.Fatal("rejected")
			}
			i++
			clk.Advance(time.Millisecond + time.Duration(i%7)*100*time.Microsecond)
			l.Release(p, adaptivelimit.OutcomeSuccess)
		})
		if w := l.Handle().Snapshot().Windows; w < 1000 {
			t.Fatalf("%v: %d windows, want one per call", alg, w)
		}
		if allocs != 0 {
			t.Fatalf("%v: %v allocs per window, want 0", alg, allocs)
		}
	}
}
