//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it.

package generate_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/examples/generate"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// allocs returns the allocations of one call of fn, averaged.
func allocs(fn func()) float64 { return testing.AllocsPerRun(2000, fn) }

// The generated wrapper adds no allocation to a call beyond what its
// pipeline allocates for a capture-free function with the same policies
// (a twin pipeline built by hand), except where a stage may call the
// function after the call has returned (a timeout in its default mode):
// there the arguments need a record of their own.
func TestTheWrapperAddsNoAllocation(t *testing.T) {
	ctx := context.Background()
	newReg := func() *r4c.Registry {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		return reg
	}
	d := still{done: future.Completed("placed")}
	reg := newReg()
	search, err := generate.NewSearchClientResilient(d, reg)
	require.NoError(t, err)
	orders, err := generate.NewOrderClientResilient(d, reg)
	require.NoError(t, err)

	twins := newReg()
	suggest, err := pipeline.NewBuilder[generate.SearchClientSuggestResult](twins, "suggest").AdaptiveLimit(nil).Build()
	require.NoError(t, err)
	cancel, err := pipeline.NewBuilder[struct{}](twins, "cancel").
		Retry(func(c *retry.Config) { c.MaxAttempts = 2; c.Wait = 100 * time.Millisecond }).
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.Algorithm = adaptivelimit.AIMD; c.InitialLimit = 10 }).
		Build()
	require.NoError(t, err)
	place, err := pipeline.NewBuilder[string](twins, "place").
		AdaptiveLimit(func(c *adaptivelimit.Config) {
			c.InitialLimit = 10
			c.MaxLimit = 100
			c.Window = 500 * time.Millisecond
		}).
		Timeout(func(c *timeout.Config) { c.Timeout = 2 * time.Second }).
		Build()
	require.NoError(t, err)
	async, err := pipeline.NewBuilder[string](twins, "async").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 2 }).Build()
	require.NoError(t, err)

	suggestFn := func(context.Context) (generate.SearchClientSuggestResult, error) {
		return generate.SearchClientSuggestResult{R0: titles, R1: true}, nil
	}
	cancelFn := func(context.Context) (struct{}, error) { return struct{}{}, nil }
	placeFn := func(context.Context) (string, error) { return "placed", nil }
	asyncFn := func(context.Context) *future.Future[string] { return d.done }

	for _, c := range []struct {
		name      string
		own, wrap func()
		extra     float64
	}{
		{"Suggest: several results, adaptive limit",
			func() { _, _ = suggest.ExecuteContext(ctx, suggestFn) },
			func() { _, _, _ = search.Suggest(ctx, "go", 2) }, 0},
		{"Cancel: error only, retry and adaptive limit",
			func() { _, _ = cancel.ExecuteContext(ctx, cancelFn) },
			func() { _ = orders.Cancel(ctx, "o") }, 0},
		{"PlaceAsync: a future, adaptive limit",
			func() { _, _ = async.ExecuteFuture(ctx, asyncFn).Get(ctx) },
			func() { _, _ = orders.PlaceAsync("o").Get(ctx) }, 0},
		{"Place: adaptive limit and a timeout in its default mode",
			func() { _, _ = place.ExecuteContext(ctx, placeFn) },
			func() { _, _ = orders.Place(ctx, "o") }, 1},
	} {
		own, wrap := allocs(c.own), allocs(c.wrap)
		assert.Equal(t, own+c.extra, wrap, "%s: the pipeline allocates %v per call itself, the wrapper %v", c.name, own, wrap)
		t.Logf("%s: pipeline %v allocs/op, wrapper %v", c.name, own, wrap)
	}
}
