//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package breaker_test

import (
	"context"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/breaker"
)

func TestAllocs(t *testing.T) {
	ctx := context.Background()
	failFn := func(context.Context) (int, error) { return 0, errBoom }
	links := []policy.Link[int]{ended{}}
	for _, tc := range []struct {
		name  string
		cfg   breaker.Config
		setup func(*breaker.Breaker)
		fn    func(context.Context) (int, error)
		links []policy.Link[int]
	}{
		{name: "success", fn: okFn},
		{name: "success, shared readings", fn: okFn, links: links},
		{name: "failure", cfg: breaker.Config{FailureRateThreshold: 1, MinimumCalls: 1_000_000}, fn: failFn},
		{name: "success, time-based", cfg: breaker.Config{WindowType: breaker.TimeBased}, fn: okFn},
		{name: "open", cfg: breaker.Config{OpenFor: time.Hour}, setup: (*breaker.Breaker).TransitionToOpen, fn: okFn},
		{name: "forced open", setup: (*breaker.Breaker).TransitionToForcedOpen, fn: okFn},
		{name: "disabled", cfg: breaker.Config{Disabled: true}, fn: okFn},
	} {
		br := mustBreaker(t, tc.cfg)
		if tc.setup != nil {
			tc.setup(br)
		}
		st := breaker.Stage[int](br)
		ch := policy.NewChain(tc.links...)
		allocs := testing.AllocsPerRun(1000, func() {
			st.Run(ctx, ch.Next(tc.fn, nil))
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs/op, want 0", tc.name, allocs)
		}
	}

	// Half-open with every trial taken refuses without allocating.
	br := mustBreaker(t, breaker.Config{HalfOpenCalls: 1})
	br.TransitionToHalfOpen()
	if _, err := br.Allow(); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(1000, func() { br.Allow() }); a != 0 {
		t.Errorf("half-open refusal: %v allocs/op, want 0", a)
	}
	// So do Do and the two-step API.
	br = mustBreaker(t, breaker.Config{})
	fn := func(context.Context) error { return nil }
	if a := testing.AllocsPerRun(1000, func() { br.Do(ctx, fn) }); a != 0 {
		t.Errorf("Do: %v allocs/op, want 0", a)
	}
	br = mustBreaker(t, breaker.Config{})
	if a := testing.AllocsPerRun(1000, func() {
		p, err := br.Allow()
		br.Record(ctx, p, err)
	}); a != 0 {
		t.Errorf("Allow+Record: %v allocs/op, want 0", a)
	}
}
