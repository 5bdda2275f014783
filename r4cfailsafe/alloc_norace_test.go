//go:build !race

// The race detector allocates, so allocation counts are checked in builds
// without it (CI runs them in a step of their own).

package r4cfailsafe_test

import (
	"testing"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/r4cfailsafe"
)

func allocsOf(e failsafe.Executor[int]) float64 {
	return testing.AllocsPerRun(200, func() { _, _ = e.Get(work) })
}

// The seam's allocations over failsafe-go's bare executor (whose own count
// is failsafe-go's business): the composition closure, the attempt's record
// and failsafe-go's result copy when admitted; the rejection's result and
// the closure when rejected (the error itself is made once).
func TestSeamAllocs(t *testing.T) {
	reg, _ := newRegistry(t)
	bare := allocsOf(failsafe.With[int]())

	p, err := r4cfailsafe.NewAdaptiveLimit[int](reg, "admitted", nil)
	assert.NoError(t, err)
	assert.LessOrEqual(t, allocsOf(failsafe.With[int](p))-bare, 3.0, "admitted")

	full, err := r4cfailsafe.NewAdaptiveLimit[int](reg, "full", func(c *adaptivelimit.Config) { c.InitialLimit, c.MinLimit = 1, 1 })
	assert.NoError(t, err)
	h, _ := reg.AdaptiveLimit("full")
	held, err := h.Limiter().Acquire(t.Context())
	assert.NoError(t, err)
	defer h.Limiter().Release(held, adaptivelimit.OutcomeIgnore)
	assert.LessOrEqual(t, allocsOf(failsafe.With[int](full))-bare, 2.0, "rejected")

	// The other way: a wrapped policy costs its executor, plus the
	// cancellable ctx, the WithContext copy, the closure and failsafe-go's
	// execution copy that GetWithExecution makes.
	retry := retrypolicy.NewWithDefaults[int]()
	own := allocsOf(failsafe.With[int](retry))
	pl, err := pipeline.NewBuilder[int](reg, "wrapped").Use(r4cfailsafe.Wrap("wrapped", retry)).Build()
	assert.NoError(t, err)
	wrapped := testing.AllocsPerRun(200, func() { _, _ = pl.Execute(work) })
	assert.LessOrEqual(t, wrapped-own, 7.0, "wrapped")
}
