//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package retry_test

import (
	"context"
	"testing"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/retry"
)

func TestAllocs(t *testing.T) {
	ctx := context.Background()
	noWait := retry.Config{Jitter: retry.JitterFull, Rand: func() float64 { return 0 }}
	n := 0
	flaky := func(context.Context) (int, error) {
		n++
		if n%2 == 1 {
			return 0, errBoom
		}
		return 1, nil
	}
	fatal := func(context.Context) (int, error) { return 0, errFatal }
	for _, tc := range []struct {
		name string
		cfg  retry.Config
		fn   func(context.Context) (int, error)
	}{
		{"first attempt succeeds", retry.Config{}, okFn},
		{"first attempt succeeds, budget", retry.Config{BudgetRatio: 0.2}, okFn},
		{"second attempt succeeds, no wait", noWait, flaky},
		{"aborted", retry.Config{AbortOn: []error{errFatal}}, fatal},
		{"disabled", retry.Config{Disabled: true}, okFn},
	} {
		st := retry.Stage[int](mustRetry(t, tc.cfg))
		ch := policy.NewChain[int]()
		allocs := testing.AllocsPerRun(1000, func() {
			st.Run(ctx, ch.Next(tc.fn, nil))
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs/op, want 0", tc.name, allocs)
		}
	}

	r := mustRetry(t, retry.Config{})
	fn := func(context.Context) error { return nil }
	if a := testing.AllocsPerRun(1000, func() { r.Do(ctx, fn) }); a != 0 {
		t.Errorf("Do: %v allocs/op, want 0", a)
	}
}
