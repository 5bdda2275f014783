package adaptivelimit_test

import (
	"context"
	"testing"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

func TestAllocsAdmittedAndRejected(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
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
