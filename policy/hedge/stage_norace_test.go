//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package hedge_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/hedge"
)

func TestDisabledAllocatesNothing(t *testing.T) {
	h, err := hedge.New(hedge.Config{Disabled: true}, policy.Env{})
	require.NoError(t, err)
	stage := hedge.Stage[int](h)
	fn := func() (int, error) { return 1, nil }
	ctx := context.Background()
	ch := policy.NewChain[int]()
	allocs := testing.AllocsPerRun(100, func() {
		_, _, _ = stage.Run(ctx, ch.Next(nil, fn))
	})
	assert.Zero(t, allocs)
}
