package bulkhead_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
)

// Issue 10, case 5: a waiter whose ctx is cancelled at the moment it is
// handed a slot must not run its function with the dead ctx: it gives the
// slot back and returns ctx.Err(). Both channels are ready when the waiter
// selects, so before the fix select picked the slot about half the time.
func TestWaiterHandedASlotWithADeadCtxGivesItBack(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Minute})
	t.Cleanup(func() { bulkhead.SetTestHookWaiting(nil) })
	for i := range 64 {
		require.True(t, f.b.TryAcquire())
		ctx, cancel := context.WithCancel(context.Background())
		bulkhead.SetTestHookWaiting(func() {
			cancel()
			f.b.Release() // handed to the waiter: ready and ctx.Done are both ready
		})
		ran := false
		_, _, err := f.st.Run(ctx, next(func(context.Context) (string, error) { ran = true; return "ran", nil }))
		require.ErrorIs(t, err, context.Canceled, "call %d", i)
		assert.False(t, ran, "call %d: the function never runs with a dead ctx", i)
		require.Zero(t, f.h.InFlight(), "call %d: the slot went back", i)
		require.Zero(t, f.h.Waiting(), "call %d", i)
	}
	bulkhead.SetTestHookWaiting(nil)
	assert.Zero(t, f.clk.Pending(), "every timer stopped")

	// With another waiter queued behind, the slot goes on to it.
	require.True(t, f.b.TryAcquire())
	got := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	bulkhead.SetTestHookWaiting(func() {
		bulkhead.SetTestHookWaiting(nil)
		go func() { got <- f.b.Acquire(context.Background()) }()
		f.blockUntil(t, 2) // both waiters' timers
		cancel()
		f.b.Release() // to the front waiter, whose ctx is dead
	})
	require.ErrorIs(t, f.b.Acquire(ctx), context.Canceled)
	select {
	case err := <-got:
		require.NoError(t, err, "the next waiter got the slot")
	case <-time.After(10 * time.Second):
		t.Fatal("the next waiter never got the slot")
	}
	assert.Equal(t, 1, f.h.InFlight())
	f.b.Release()
	assert.Zero(t, f.h.InFlight())
	assert.Zero(t, f.clk.Pending())
}

func next(fn func(context.Context) (string, error)) policy.Next[string] {
	return policy.NewNext[string](nil, fn, nil)
}
