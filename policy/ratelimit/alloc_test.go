//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/stretchr/testify/require"
)

// The admitted and the rejected paths allocate nothing, with an event bus
// nobody listens to.
func TestZeroAllocs(t *testing.T) {
	env := policy.Env{Events: &events.Bus{}, Instance: "api"}
	ctx := context.Background()
	fn := func(context.Context) (string, error) { return "ok", nil }

	open, err := ratelimit.New(ratelimit.Config{Limit: 1_000_000_000, Period: time.Second}, env)
	require.NoError(t, err)
	ch := policy.NewChain(ratelimit.Stage[string](open))
	admitted := testing.AllocsPerRun(1000, func() {
		_, _, _ = ch.Next(fn, nil).Run(ctx)
	})
	require.Zero(t, admitted, "admitted")

	shut, err := ratelimit.New(ratelimit.Config{Limit: 1, Period: time.Hour, MaxWait: time.Minute}, env)
	require.NoError(t, err)
	require.True(t, shut.Allow())
	ch = policy.NewChain(ratelimit.Stage[string](shut))
	rejected := testing.AllocsPerRun(1000, func() {
		_, _, err := ch.Next(fn, nil).Run(ctx)
		_ = err.(*ratelimit.RateLimitedError).RetryAfter()
	})
	require.Zero(t, rejected, "rejected, beyond MaxWait, with RetryAfter")

	core := testing.AllocsPerRun(1000, func() {
		_ = open.Allow()
		_ = shut.Allow()
		_ = shut.Wait(ctx)
		_ = shut.Available()
	})
	require.Zero(t, core, "Allow, Wait, Available")
}
