package retry_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/policy/retry"
)

// budgetRig makes a retry with a budget whose waits take no time, so that
// calls run on the test goroutine.
func budgetRig(t *testing.T, cfg retry.Config) *rig {
	cfg.Jitter, cfg.Rand = retry.JitterFull, constant(0)
	return newRig(t, cfg)
}

func TestBudgetLimitsRetries(t *testing.T) {
	g := budgetRig(t, retry.Config{MaxAttempts: 2, BudgetRatio: 0.5, BudgetMinRetries: 1})
	h := g.r.Handle()
	assert.True(t, h.Snapshot().BudgetEnabled)
	assert.Equal(t, 1, h.Snapshot().BudgetAvailable, "BudgetMinRetries before any call")

	// Call k deposits one call, so the allowance is 1 + 0.5k, and k-1
	// retries were made before it: calls 1 and 2 may retry, call 3 may not.
	for k := 1; k <= 2; k++ {
		_, _, err := g.run(context.Background(), g.script(fail(errBoom)))
		assert.ErrorIs(t, err, retry.ErrExhausted, "call %d", k)
		assert.NotErrorIs(t, err, retry.ErrBudgetExhausted, "call %d", k)
	}
	assert.EqualValues(t, 4, g.calls.Load())
	assert.Equal(t, 0, h.Snapshot().BudgetAvailable, "allowance 2, 2 retries")

	_, _, err := g.run(context.Background(), g.script(fail(errBoom)))
	var ex *retry.ExhaustedError
	require.ErrorAs(t, err, &ex)
	assert.True(t, ex.Budget)
	assert.Equal(t, 1, ex.Attempts)
	assert.ErrorIs(t, err, retry.ErrBudgetExhausted)
	assert.ErrorIs(t, err, retry.ErrExhausted)
	assert.ErrorIs(t, err, errBoom)
	assert.Equal(t, "r4c: retry svc gave up after 1 attempt (retry budget exhausted): boom", err.Error())
	assert.EqualValues(t, 5, g.calls.Load(), "no retry: a third would exceed 2.5")
	assert.Equal(t, 0, h.Snapshot().BudgetAvailable, "allowance 2.5, 2 retries")

	// A success deposits too: allowance 3.
	_, _, err = g.run(context.Background(), g.script(ok("fine")))
	require.NoError(t, err)
	assert.Equal(t, 1, h.Snapshot().BudgetAvailable)

	s := h.Snapshot()
	assert.EqualValues(t, 1, s.BudgetRejections)
	assert.EqualValues(t, 2, s.Exhausted)
	assert.EqualValues(t, 2, s.Retries)
	assert.EqualValues(t, 4, s.Calls)
}

func TestBudgetWindowSlides(t *testing.T) {
	g := budgetRig(t, retry.Config{MaxAttempts: 2, BudgetRatio: 1, BudgetMinRetries: 1, BudgetWindow: 10 * time.Second})
	h := g.r.Handle()
	failing, fine := g.script(fail(errBoom)), func(context.Context) (string, error) { return "ok", nil }

	// At 0s: 4 calls, 2 of them retried: allowance 1+4, retries 2.
	for range 2 {
		g.run(context.Background(), failing)
		g.run(context.Background(), fine)
	}
	assert.Equal(t, 3, h.Snapshot().BudgetAvailable)

	// At 5s: 2 more calls, both retried: allowance 1+6, retries 4.
	g.clk.Advance(5 * time.Second)
	g.run(context.Background(), failing)
	g.run(context.Background(), failing)
	assert.Equal(t, 3, h.Snapshot().BudgetAvailable)

	// At 9.999s the window (ten buckets of a second) still holds all of them.
	g.clk.Advance(4999 * time.Millisecond)
	assert.Equal(t, 3, h.Snapshot().BudgetAvailable)

	// At 10s the calls of 0s have left: allowance 1+2, retries 2.
	g.clk.Advance(time.Millisecond)
	assert.Equal(t, 1, h.Snapshot().BudgetAvailable)

	// At 15s nothing is left but BudgetMinRetries.
	g.clk.Advance(5 * time.Second)
	assert.Equal(t, 1, h.Snapshot().BudgetAvailable)
	_, _, err := g.run(context.Background(), failing)
	assert.NotErrorIs(t, err, retry.ErrBudgetExhausted, "calls 1, retries 0: allowed")
	assert.Equal(t, 1, h.Snapshot().BudgetAvailable, "calls 1, retries 1, allowance 2")
	_, _, err = g.run(context.Background(), failing)
	assert.NotErrorIs(t, err, retry.ErrBudgetExhausted, "calls 2, retries 1, allowance 3: allowed")
}

func TestBudgetOldCallsLeave(t *testing.T) {
	g := budgetRig(t, retry.Config{MaxAttempts: 2, BudgetRatio: 0.5, BudgetMinRetries: 1, BudgetWindow: 10 * time.Second})
	h := g.r.Handle()
	// 10 successful calls at 0s: allowance 1 + 5.
	for range 10 {
		g.run(context.Background(), g.script(ok("a")))
	}
	assert.Equal(t, 6, h.Snapshot().BudgetAvailable)
	g.clk.Advance(9 * time.Second)
	assert.Equal(t, 6, h.Snapshot().BudgetAvailable)
	g.clk.Advance(time.Second)
	assert.Equal(t, 1, h.Snapshot().BudgetAvailable, "the calls of 10s ago no longer count")
}

func TestNoBudget(t *testing.T) {
	g := budgetRig(t, retry.Config{MaxAttempts: 2})
	for range 50 {
		_, _, err := g.run(context.Background(), g.script(fail(errBoom)))
		assert.NotErrorIs(t, err, retry.ErrBudgetExhausted)
	}
	s := g.r.Handle().Snapshot()
	assert.False(t, s.BudgetEnabled)
	assert.Zero(t, s.BudgetAvailable)
	assert.EqualValues(t, 50, s.Retries)
}

func TestBudgetUnderConcurrency(t *testing.T) {
	// Many goroutines at one instant: the budget may overshoot by the
	// goroutines deciding together, never by more.
	const workers, each = 8, 50
	g := budgetRig(t, retry.Config{MaxAttempts: 2, BudgetRatio: 0.1, BudgetMinRetries: 5})
	done := make(chan struct{})
	for range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for range each {
				g.run(context.Background(), g.script(fail(errBoom)))
			}
		}()
	}
	for range workers {
		<-done
	}
	s := g.r.Handle().Snapshot()
	assert.EqualValues(t, workers*each, s.Calls)
	allowed := 5 + 0.1*workers*each
	assert.LessOrEqual(t, float64(s.Retries), allowed+workers-1)
	assert.GreaterOrEqual(t, float64(s.Retries), allowed-1)
	assert.EqualValues(t, workers*each, s.Exhausted+s.BudgetRejections)
}
