//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package bulkhead_test

import (
	"context"
	"testing"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/stretchr/testify/require"
)

// The admitted and the fail-fast rejected paths allocate nothing, with an
// event bus nobody listens to.
func TestZeroAllocs(t *testing.T) {
	b, err := bulkhead.New(bulkhead.Config{MaxConcurrent: 1}, policy.Env{Events: &events.Bus{}, Instance: "db"})
	require.NoError(t, err)
	st := bulkhead.Stage[string](b)
	ctx := context.Background()
	fn := func(context.Context) (string, error) { return "ok", nil }
	ch := policy.NewChain(st)

	admitted := testing.AllocsPerRun(1000, func() {
		_, _, _ = ch.Next(fn, nil).Run(ctx)
	})
	require.Zero(t, admitted, "admitted")

	require.True(t, b.TryAcquire())
	rejected := testing.AllocsPerRun(1000, func() {
		_, _, _ = ch.Next(fn, nil).Run(ctx)
	})
	require.Zero(t, rejected, "rejected")
	b.Release()

	core := testing.AllocsPerRun(1000, func() {
		if b.TryAcquire() {
			b.Release()
		}
		_ = b.Acquire(ctx)
		b.Release()
	})
	require.Zero(t, core, "TryAcquire, Acquire, Release")
}
