//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package fallback_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/fallback"
)

func TestSyncPathsAllocateNothing(t *testing.T) {
	f, err := fallback.New(fallback.Config{Value: 1}, policy.Env{Events: &events.Bus{}})
	require.NoError(t, err)
	s, err := fallback.Stage[int](f)
	require.NoError(t, err)
	ctx := context.Background()
	ok := func() (int, error) { return 2, nil }
	bad := func() (int, error) { return 0, errDown }
	ch := policy.NewChain[int]()
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _, _ = s.Run(ctx, ch.Next(nil, ok)) }), "success")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _, _ = s.Run(ctx, ch.Next(nil, bad)) }), "handled")
}
