//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package timeout_test

import (
	"context"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/stretchr/testify/require"
)

// A call allocates no more than its deadline context, in both modes: the
// cooperative mode runs inline, and the default mode recycles the record it
// shares with its goroutine and starts the goroutine without a closure. The
// deadline context counts with its Done channel, which the context package
// makes on first use: the default mode selects on it, and so does any
// function that honours its ctx. With the real clock and a cancellable
// parent: 4 allocations for the context, 1 for its Done channel.
func TestAllocsNoMoreThanDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background()) // a cancellable parent, as most callers have
	defer cancel()
	deadline := testing.AllocsPerRun(1000, func() {
		c, cancel := policy.System.WithDeadline(ctx, time.Now().Add(time.Hour))
		_ = c.Done()
		cancel()
	})
	fn := func(context.Context) (string, error) { return "ok", nil } // does not touch Done
	for _, coop := range []bool{true, false} {
		to, err := timeout.New(timeout.Config{Timeout: time.Hour, Cooperative: coop}, policy.Env{Events: &events.Bus{}})
		require.NoError(t, err)
		ch := policy.NewChain(timeout.Stage[string](to))
		got := testing.AllocsPerRun(1000, func() {
			_, _, _ = ch.Next(fn, nil).Run(ctx)
		})
		t.Logf("%s: %.0f allocs per call; the deadline context alone: %.0f", mode(coop), got, deadline)
		require.LessOrEqual(t, got, deadline, mode(coop))
	}
}

// Disabled, the stage allocates nothing.
func TestDisabledZeroAllocs(t *testing.T) {
	to, err := timeout.New(timeout.Config{Disabled: true}, policy.Env{})
	require.NoError(t, err)
	ch := policy.NewChain(timeout.Stage[string](to))
	fn := func(context.Context) (string, error) { return "ok", nil }
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		_, _, _ = ch.Next(fn, nil).Run(context.Background())
	}))
}
