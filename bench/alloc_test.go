//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package bench_test

import (
	"context"
	"errors"
	"testing"

	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// TestAllocationBudgets checks SPEC.md's allocation budgets on the paths
// the benchmarks measure: 0 allocs/op for an admitted and a rejected call
// through a one-policy adaptive-limit pipeline, for the full synchronous
// pipeline, and for the other policies' admitted and rejected paths.
func TestAllocationBudgets(t *testing.T) {
	ctx := context.Background()
	zero := func(t *testing.T, what string, f func()) {
		t.Helper()
		f() // warm up: lazily built state does not count
		if n := testing.AllocsPerRun(200, f); n != 0 {
			t.Errorf("%s: %v allocs/op, want 0", what, n)
		}
	}
	mustOK := func(t *testing.T, p *pipeline.Pipeline[int]) func() {
		return func() {
			if _, err := p.Execute(work); err != nil {
				t.Fatal(err)
			}
		}
	}
	mustReject := func(t *testing.T, p *pipeline.Pipeline[int], target error) func() {
		return func() {
			if _, err := p.Execute(work); !errors.Is(err, target) {
				t.Fatal("not rejected:", err)
			}
		}
	}

	t.Run("adaptive limit", func(t *testing.T) {
		p := r4cBuild(t, pipeline.NewBuilder[int](r4cRegistry(t), "al").AdaptiveLimit(adaptiveAdmitted))
		zero(t, "admitted through the pipeline", mustOK(t, p))
		one := r4cBuild(t, pipeline.NewBuilder[int](r4cRegistry(t), "al").AdaptiveLimit(adaptiveOne))
		release := holdSlot(t, one)
		zero(t, "rejected through the pipeline", mustReject(t, one, adaptivelimit.ErrLimitExceeded))
		release()
		l := r4cLimiter(t, adaptiveAdmitted)
		zero(t, "core admitted", func() {
			p, ok := l.TryAcquire()
			if !ok {
				t.Fatal("rejected")
			}
			_, err := work()
			l.Release(p, l.Classify(ctx, err))
		})
	})
	t.Run("full pipeline", func(t *testing.T) {
		zero(t, "success", mustOK(t, r4cFull(t, nil)))
	})
	t.Run("bulkhead", func(t *testing.T) {
		zero(t, "admitted", mustOK(t, r4cBuild(t, pipeline.NewBuilder[int](r4cRegistry(t), "bh").Bulkhead(bulkheadAdmitted))))
		one := r4cBuild(t, pipeline.NewBuilder[int](r4cRegistry(t), "bh").Bulkhead(bulkheadOne))
		release := holdSlot(t, one)
		zero(t, "rejected", mustReject(t, one, bulkhead.ErrFull))
		release()
	})
	t.Run("rate limiter", func(t *testing.T) {
		zero(t, "allowed", mustOK(t, r4cBuild(t, pipeline.NewBuilder[int](r4cRegistry(t), "rl").RateLimit(rateAdmitted))))
		one := r4cBuild(t, pipeline.NewBuilder[int](r4cRegistry(t), "rl").RateLimit(rateOne))
		mustOK(t, one)()
		zero(t, "rejected", mustReject(t, one, ratelimit.ErrRateLimited))
	})
	t.Run("breaker", func(t *testing.T) {
		zero(t, "success", mustOK(t, r4cBuild(t, pipeline.NewBuilder[int](r4cRegistry(t), "cb").Breaker(breakerSlow))))
	})
	t.Run("retry", func(t *testing.T) {
		zero(t, "first attempt succeeds", mustOK(t, r4cBuild(t, pipeline.NewBuilder[int](r4cRegistry(t), "rt").Retry(retryDefault))))
	})
}
