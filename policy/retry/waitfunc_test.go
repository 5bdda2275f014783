package retry_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy/retry"
)

// waitErr asks for a wait, as an HTTP 429 with Retry-After does.
type waitErr struct{ d time.Duration }

func (e waitErr) Error() string             { return "busy, retry after " + e.d.String() }
func (e waitErr) RetryAfter() time.Duration { return e.d }

// hookCall records one call of a WaitFunc.
type hookCall struct {
	err     error
	attempt int
	backoff time.Duration
}

func TestWaitFuncChoosesTheWait(t *testing.T) {
	var mu sync.Mutex
	var calls []hookCall
	g := newRig(t, retry.Config{Wait: 100 * time.Millisecond, Multiplier: 2,
		WaitFunc: func(err error, attempt int, backoff time.Duration) time.Duration {
			mu.Lock()
			calls = append(calls, hookCall{err, attempt, backoff})
			mu.Unlock()
			return 3*time.Second + time.Duration(attempt)*time.Millisecond
		}})
	ch := g.start(context.Background(), g.script(fail(errBoom), fail(errFatal), ok("third")))

	g.waitTimers(1)
	g.clk.Advance(3*time.Second + 0*time.Millisecond)
	assert.EqualValues(t, 1, g.calls.Load(), "the hook's 3.001s is waited, not the backoff's 100ms")
	g.clk.Advance(time.Millisecond)
	g.waitTimers(1)
	assert.EqualValues(t, 2, g.calls.Load())
	g.clk.Advance(3*time.Second + time.Millisecond)
	assert.EqualValues(t, 2, g.calls.Load())
	g.clk.Advance(time.Millisecond)
	r := recv(t, ch)
	require.NoError(t, r.err)
	assert.Equal(t, "third", r.v)

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []hookCall{{errBoom, 1, 100 * time.Millisecond}, {errFatal, 2, 200 * time.Millisecond}}, calls,
		"the hook sees each failed attempt's error and number and the backoff's wait")
	assert.Equal(t, []events.RetryAttempt{
		{Instance: "svc", Attempt: 2, Wait: 3001 * time.Millisecond, Err: errBoom},
		{Instance: "svc", Attempt: 3, Wait: 3002 * time.Millisecond, Err: errFatal},
	}, g.attempts(), "the event carries the wait really waited")
}

func TestWaitFuncNegativeWaitsNothing(t *testing.T) {
	g := newRig(t, retry.Config{Wait: time.Hour,
		WaitFunc: func(error, int, time.Duration) time.Duration { return -time.Second }})
	v, _, err := g.run(context.Background(), g.script(fail(errBoom), ok("b")))
	require.NoError(t, err)
	assert.Equal(t, "b", v)
	assert.Equal(t, time.Duration(0), g.attempts()[0].Wait)
}

func TestWaitFuncIsNotCalledForErrorsNotRetried(t *testing.T) {
	called := false
	g := newRig(t, retry.Config{AbortOn: []error{errFatal},
		WaitFunc: func(error, int, time.Duration) time.Duration { called = true; return 0 }})
	_, _, err := g.run(context.Background(), g.script(fail(errFatal)))
	require.ErrorIs(t, err, errFatal)
	assert.False(t, called)
}

func TestRetryAfterWait(t *testing.T) {
	for _, c := range []struct {
		name    string
		err     error
		backoff time.Duration
		want    time.Duration
	}{
		{"longer than the backoff", waitErr{2 * time.Second}, time.Second, 2 * time.Second},
		{"shorter than the backoff", waitErr{time.Millisecond}, time.Second, time.Second},
		{"wrapped", fmt.Errorf("call: %w", waitErr{5 * time.Second}), 0, 5 * time.Second},
		{"no wait asked", errBoom, 300 * time.Millisecond, 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, retry.RetryAfterWait(c.err, 1, c.backoff))
		})
	}
}

func TestRetryAfterWaitOnTheManualClock(t *testing.T) {
	g := newRig(t, retry.Config{Wait: 10 * time.Millisecond, WaitFunc: retry.RetryAfterWait})
	ch := g.start(context.Background(), g.script(fail(waitErr{7 * time.Second}), ok("after")))
	g.waitTimers(1)
	g.clk.Advance(7*time.Second - time.Nanosecond)
	assert.EqualValues(t, 1, g.calls.Load(), "the retry honours the 7s the error asked for, to the nanosecond")
	g.clk.Advance(time.Nanosecond)
	r := recv(t, ch)
	require.NoError(t, r.err)
	assert.Equal(t, "after", r.v)
}

func TestDoHonoursWaitFunc(t *testing.T) {
	g := newRig(t, retry.Config{Wait: 10 * time.Millisecond, WaitFunc: retry.RetryAfterWait})
	done := make(chan error, 1)
	n := 0
	go func() {
		done <- g.r.Do(context.Background(), func(context.Context) error {
			n++
			if n == 1 {
				return waitErr{time.Minute}
			}
			return nil
		})
	}()
	g.waitTimers(1)
	g.clk.Advance(time.Minute - time.Nanosecond)
	select {
	case <-done:
		t.Fatal("Do retried before the minute the error asked for")
	default:
	}
	g.clk.Advance(time.Nanosecond)
	require.NoError(t, recv(t, done))
	assert.Equal(t, 2, n)
}

func TestAsyncHonoursWaitFunc(t *testing.T) {
	g := newRig(t, retry.Config{Wait: 10 * time.Millisecond, WaitFunc: retry.RetryAfterWait})
	a := newAttempts()
	f := g.async(context.Background(), a.fn)
	a.next(t, 1).Fail(waitErr{2 * time.Second})
	g.waitTimers(1)
	g.clk.Advance(2*time.Second - time.Nanosecond)
	assert.Equal(t, 1, a.count())
	g.clk.Advance(time.Nanosecond)
	a.next(t, 2).Complete("late")
	v, err := get(t, f)
	require.NoError(t, err)
	assert.Equal(t, "late", v)
}
