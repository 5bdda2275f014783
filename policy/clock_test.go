package policy_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

func TestSleepWaitsTheFullDurationOnTheManualClock(t *testing.T) {
	clk := clocktest.NewManualClock()
	ctx := context.Background()
	done := make(chan error, 1)
	go func() { done <- policy.Sleep(ctx, clk, 3*time.Second) }()
	require.NoError(t, clk.BlockUntil(ctx, 1))

	clk.Advance(3*time.Second - 1)
	select {
	case err := <-done:
		t.Fatalf("Sleep returned %v 1ns early", err)
	default:
	}
	clk.Advance(1)
	assert.NoError(t, <-done)
	assert.Equal(t, 0, clk.Pending())
}

func TestSleepReturnsCtxErrorOnCancel(t *testing.T) {
	clk := clocktest.NewManualClock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- policy.Sleep(ctx, clk, time.Hour) }()
	require.NoError(t, clk.BlockUntil(context.Background(), 1))
	cancel()
	assert.Equal(t, context.Canceled, <-done, "ctx's error, unchanged")
	assert.Equal(t, 0, clk.Pending(), "a cancelled Sleep stops its timer")
}

func TestSleepEndsAtAManualDeadline(t *testing.T) {
	clk := clocktest.NewManualClock()
	ctx, cancel := clk.WithDeadline(context.Background(), clk.Now().Add(time.Second))
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- policy.Sleep(ctx, clk, time.Hour) }()
	require.NoError(t, clk.BlockUntil(context.Background(), 2)) // the deadline and the sleep
	clk.Advance(time.Second)
	assert.Equal(t, context.DeadlineExceeded, <-done)
	assert.Equal(t, 0, clk.Pending())
}

func TestSleepNonPositiveAndDoneCtx(t *testing.T) {
	clk := clocktest.NewManualClock()
	ctx := context.Background()
	assert.NoError(t, policy.Sleep(ctx, clk, 0))
	assert.NoError(t, policy.Sleep(ctx, clk, -time.Second))

	done, cancel := context.WithCancel(ctx)
	cancel()
	assert.Equal(t, context.Canceled, policy.Sleep(done, clk, 0))
	assert.Equal(t, context.Canceled, policy.Sleep(done, clk, time.Second))
	assert.Equal(t, 0, clk.Pending(), "nothing is armed for a done ctx or a non-positive wait")
	assert.Equal(t, int64(0), clk.Nanotime())
}

func TestEnvClockOrSystem(t *testing.T) {
	assert.Equal(t, policy.System, policy.Env{}.ClockOrSystem())
	clk := clocktest.NewManualClock()
	assert.Same(t, clk, policy.Env{Clock: clk}.ClockOrSystem())

	var env policy.Env
	assert.Nil(t, env.Events)
	assert.False(t, env.Events.Active(), "a zero Env publishes nowhere")
	env.Events = &events.Bus{}
	assert.False(t, env.Events.Active())
}

func TestSystemClockReal(t *testing.T) {
	// Outside a bubble: only properties that hold on any machine.
	a := policy.System.Nanotime()
	now := policy.System.Now()
	b := policy.System.Nanotime()
	assert.LessOrEqual(t, a, b, "monotonic")
	assert.WithinDuration(t, time.Now(), now, time.Minute)

	tm := policy.System.NewTimer(time.Hour)
	assert.NotNil(t, tm.C())
	assert.True(t, tm.Stop())
	assert.False(t, tm.Stop())

	ctx, cancel := policy.System.WithDeadline(context.Background(), now.Add(time.Hour))
	d, ok := ctx.Deadline()
	assert.True(t, ok)
	assert.True(t, d.Equal(now.Add(time.Hour)))
	cancel()
	assert.Equal(t, context.Canceled, ctx.Err())

	ctx, cancel = policy.System.WithDeadline(context.Background(), now.Add(-time.Second))
	defer cancel()
	assert.Equal(t, context.DeadlineExceeded, ctx.Err(), "a past deadline is done at once")
}

// The library runs unchanged inside a testing/synctest bubble with the
// System clock: waits take exactly their virtual time.
func TestSystemClockInSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		clk := policy.System

		a := clk.Nanotime()
		start := clk.Now()
		require.NoError(t, policy.Sleep(ctx, clk, 3*time.Second))
		b := clk.Nanotime()
		t.Logf("Nanotime readings in the bubble: %d, %d", a, b)
		assert.Equal(t, int64(3*time.Second), b-a, "Nanotime differences are exact")
		assert.Equal(t, 3*time.Second, clk.Now().Sub(start), "Sleep waits virtual time exactly")

		// A deadline context from the System clock fires in the bubble.
		d := clk.Now().Add(5 * time.Second)
		dctx, cancel := clk.WithDeadline(ctx, d)
		defer cancel()
		got, ok := dctx.Deadline()
		assert.True(t, ok)
		assert.True(t, got.Equal(d))
		before := clk.Nanotime()
		<-dctx.Done()
		assert.Equal(t, int64(5*time.Second), clk.Nanotime()-before)
		assert.Equal(t, context.DeadlineExceeded, dctx.Err())
		assert.Equal(t, context.DeadlineExceeded, context.Cause(dctx))

		// A Sleep cut short by a deadline returns the deadline's error at it.
		sctx, scancel := clk.WithDeadline(ctx, clk.Now().Add(2*time.Second))
		defer scancel()
		before = clk.Nanotime()
		assert.Equal(t, context.DeadlineExceeded, policy.Sleep(sctx, clk, time.Hour))
		assert.Equal(t, int64(2*time.Second), clk.Nanotime()-before)

		// A Sleep cancelled by another goroutine returns at once, and
		// stops its timer (synctest would report a goroutine left behind).
		cctx, ccancel := context.WithCancel(ctx)
		before = clk.Nanotime()
		go func() {
			time.Sleep(700 * time.Millisecond)
			ccancel()
		}()
		assert.Equal(t, context.Canceled, policy.Sleep(cctx, clk, time.Hour))
		assert.Equal(t, int64(700*time.Millisecond), clk.Nanotime()-before)

		// A timer fires after exactly its duration.
		tm := clk.NewTimer(1500 * time.Millisecond)
		before = clk.Nanotime()
		<-tm.C()
		assert.Equal(t, int64(1500*time.Millisecond), clk.Nanotime()-before)
		assert.False(t, tm.Stop())
		synctest.Wait()
	})
}
