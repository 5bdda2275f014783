package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/internal/testkit"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/retry"
)

// A wait in progress runs its course; the next wait follows the new
// backoff, and the next decision the new maximum of attempts.
func TestSetBackoffAndMaxAttemptsMidCall(t *testing.T) {
	g := newRig(t, retry.Config{MaxAttempts: 5, Wait: time.Second})
	h := g.r.Handle()
	attempt := 0
	done := make(chan error, 1)
	go func() {
		done <- g.r.Do(context.Background(), func(context.Context) error {
			attempt++
			if attempt == 3 {
				// During the third attempt: at most 3 attempts.
				if err := h.SetMaxAttempts(3); err != nil {
					return err
				}
			}
			return errBoom
		})
	}()
	testkit.BlockUntil(t, g.clk, 1) // waiting 1s before attempt 2
	require.NoError(t, h.SetBackoff(2*time.Second, 2, 3*time.Second))
	g.clk.Advance(time.Second) // the wait in progress: 1s
	testkit.BlockUntil(t, g.clk, 1)
	g.clk.Advance(2*time.Second - time.Nanosecond) // the next wait: the new 2s * 2^1, capped at 3s
	assert.Equal(t, 1, g.clk.Pending(), "still waiting")
	g.clk.Advance(time.Second + time.Nanosecond)
	var ex *retry.ExhaustedError
	select {
	case err := <-done:
		require.ErrorAs(t, err, &ex)
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end")
	}
	assert.Equal(t, 3, ex.Attempts)
	var waits []time.Duration
	for _, a := range g.attempts() {
		waits = append(waits, a.Wait)
	}
	assert.Equal(t, []time.Duration{time.Second, 3 * time.Second}, waits)
	assert.Equal(t, 3, h.Snapshot().MaxAttempts)

	var cc []events.ConfigChanged
	for _, e := range g.events() {
		if c, ok := e.(events.ConfigChanged); ok {
			cc = append(cc, c)
		}
	}
	require.Len(t, cc, 2)
	assert.Equal(t, []events.KeyChange{{Key: "wait", Old: "1s", New: "2s"}, {Key: "multiplier", Old: "1", New: "2"},
		{Key: "maxDelay", Old: "0s", New: "3s"}}, cc[0].Changes)
	assert.Equal(t, []events.KeyChange{{Key: "maxAttempts", Old: "5", New: "3"}}, cc[1].Changes)
}

func TestRetryReconfigure(t *testing.T) {
	g := newRig(t, retry.Config{MaxAttempts: 2})
	h := g.r.Handle()
	c := h.Config()
	c.Jitter = retry.JitterFull
	c.Wait = 100 * time.Millisecond
	require.NoError(t, h.Reconfigure(c))
	assert.Equal(t, retry.JitterFull, h.Config().Jitter)

	before := h.Snapshot()
	var fe *policy.FieldError
	require.True(t, errors.As(h.SetMaxAttempts(0), &fe))
	assert.Equal(t, policy.ClassBound, fe.Class)
	require.True(t, errors.As(h.SetBackoff(time.Second, 1, time.Millisecond), &fe))
	assert.Equal(t, "maxDelay", fe.Key)
	c = h.Config()
	c.BudgetRatio = 0.2
	require.True(t, errors.As(h.Reconfigure(c), &fe))
	assert.Equal(t, "budgetRatio", fe.Key)
	assert.Equal(t, policy.ClassNotLive, fe.Class)
	assert.Equal(t, before, h.Snapshot())
}
