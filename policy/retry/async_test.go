package retry_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/retry"
)

// attempts hands out a pending promise per attempt, for the test to settle.
type attempts struct {
	mu     sync.Mutex
	prs    []*future.Promise[string]
	ctxs   []context.Context
	notify chan struct{}
}

func newAttempts() *attempts { return &attempts{notify: make(chan struct{}, 100)} }

func (a *attempts) fn(ctx context.Context) *future.Future[string] {
	pr := future.NewPromise[string]()
	a.mu.Lock()
	a.prs = append(a.prs, pr)
	a.ctxs = append(a.ctxs, ctx)
	a.mu.Unlock()
	a.notify <- struct{}{}
	return pr.Future()
}

// next waits for attempt n (1-based) to start and returns its promise.
func (a *attempts) next(t *testing.T, n int) *future.Promise[string] {
	t.Helper()
	recv(t, a.notify)
	a.mu.Lock()
	defer a.mu.Unlock()
	require.Len(t, a.prs, n)
	return a.prs[n-1]
}

func (a *attempts) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.prs)
}

func (g *rig) async(ctx context.Context, fn func(context.Context) *future.Future[string]) *future.Future[string] {
	return retry.Stage[string](g.r).RunAsync(ctx, policy.NewAsyncNext[string](nil, fn))
}

func get(t *testing.T, f *future.Future[string]) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, err := f.Get(ctx)
	require.NotErrorIs(t, err, context.DeadlineExceeded, "the future did not complete")
	return v, err
}

func TestAsyncFirstAttemptSucceeds(t *testing.T) {
	g := newRig(t, retry.Config{})
	f := g.async(context.Background(), func(context.Context) *future.Future[string] { return future.Completed("a") })
	v, err := get(t, f)
	require.NoError(t, err)
	assert.Equal(t, "a", v)
	assert.EqualValues(t, 1, g.r.Handle().Snapshot().SuccessesWithoutRetry, "counted before the future completed")
}

func TestAsyncRetries(t *testing.T) {
	g := newRig(t, retry.Config{})
	a := newAttempts()
	f := g.async(context.Background(), a.fn)
	p1 := a.next(t, 1) // the first attempt starts on the calling goroutine
	p1.Fail(errBoom)

	g.waitTimers(1)
	g.clk.Advance(499 * time.Millisecond)
	assert.Equal(t, 1, a.count())
	g.clk.Advance(time.Millisecond)
	p2 := a.next(t, 2)
	p2.Complete("second")

	v, err := get(t, f)
	require.NoError(t, err)
	assert.Equal(t, "second", v)
	s := g.r.Handle().Snapshot()
	assert.EqualValues(t, 1, s.SuccessesWithRetry)
	assert.EqualValues(t, 1, s.Retries)
	assert.Len(t, g.attempts(), 1)
}

func TestAsyncExhausted(t *testing.T) {
	g := newRig(t, retry.Config{MaxAttempts: 2, Wait: time.Second})
	a := newAttempts()
	f := g.async(context.Background(), a.fn)
	a.next(t, 1).Fail(errBoom)
	g.waitTimers(1)
	g.clk.Advance(time.Second)
	a.next(t, 2).Fail(errBoom)
	_, err := get(t, f)
	var ex *retry.ExhaustedError
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, 2, ex.Attempts)
	assert.ErrorIs(t, err, errBoom)
	assert.EqualValues(t, 1, g.r.Handle().Snapshot().Exhausted)
}

func TestAsyncNotRetried(t *testing.T) {
	g := newRig(t, retry.Config{AbortOn: []error{errFatal}})
	a := newAttempts()
	f := g.async(context.Background(), a.fn)
	a.next(t, 1).Fail(errFatal)
	_, err := get(t, f)
	assert.Same(t, errFatal, err)
	assert.Zero(t, g.clk.Pending())
	assert.EqualValues(t, 1, g.r.Handle().Snapshot().FailuresWithoutRetry)
}

func TestAsyncCancelDuringTheWait(t *testing.T) {
	g := newRig(t, retry.Config{})
	a := newAttempts()
	f := g.async(context.Background(), a.fn)
	a.next(t, 1).Fail(errBoom)
	g.waitTimers(1)
	require.True(t, f.Cancel())
	_, err := get(t, f)
	assert.ErrorIs(t, err, future.ErrCancelled)
	// The waiting goroutine stops its timer and ends (goleak checks it ended).
	require.Eventually(t, func() bool { return g.clk.Pending() == 0 }, 5*time.Second, time.Millisecond)
	g.clk.Advance(time.Hour)
	assert.Equal(t, 1, a.count(), "no attempt after the cancellation")
	assert.EqualValues(t, 1, g.r.Handle().Snapshot().Cancelled)
}

func TestAsyncCancelDuringAnAttempt(t *testing.T) {
	g := newRig(t, retry.Config{})
	a := newAttempts()
	f := g.async(context.Background(), a.fn)
	a.next(t, 1).Fail(errBoom)
	g.waitTimers(1)
	g.clk.Advance(500 * time.Millisecond)
	p2 := a.next(t, 2)
	require.True(t, f.Cancel())
	_, err := p2.Future().Get(context.Background())
	assert.ErrorIs(t, err, future.ErrCancelled, "the attempt in flight is cancelled")
	assert.False(t, p2.Complete("late"))
	s := g.r.Handle().Snapshot()
	assert.EqualValues(t, 1, s.Cancelled)
	assert.EqualValues(t, 1, s.Calls)
}

func TestAsyncCtxDoneDuringTheWait(t *testing.T) {
	g := newRig(t, retry.Config{})
	a := newAttempts()
	ctx, cancel := context.WithCancel(context.Background())
	f := g.async(ctx, a.fn)
	a.next(t, 1).Fail(errBoom)
	g.waitTimers(1)
	cancel()
	_, err := get(t, f)
	assert.Same(t, context.Canceled, err)
	assert.Zero(t, g.clk.Pending())
	assert.EqualValues(t, 1, g.r.Handle().Snapshot().Cancelled)
}

func TestAsyncCallerCancellationNotRetried(t *testing.T) {
	g := newRig(t, retry.Config{})
	a := newAttempts()
	ctx, cancel := context.WithCancel(context.Background())
	f := g.async(ctx, a.fn)
	p := a.next(t, 1)
	cancel()
	p.Fail(context.Canceled)
	_, err := get(t, f)
	assert.Same(t, context.Canceled, err)
	assert.Equal(t, 1, a.count())
}

func TestAsyncCancelledAttemptNotRetried(t *testing.T) {
	g := newRig(t, retry.Config{})
	a := newAttempts()
	f := g.async(context.Background(), a.fn)
	a.next(t, 1).Future().Cancel() // cancelled by someone else
	_, err := get(t, f)
	assert.ErrorIs(t, err, future.ErrCancelled)
	assert.Equal(t, 1, a.count())
	assert.Zero(t, g.clk.Pending())
}

func TestAsyncZeroWait(t *testing.T) {
	g := newRig(t, retry.Config{Jitter: retry.JitterFull, Rand: constant(0), MaxAttempts: 3})
	n := 0
	f := g.async(context.Background(), func(context.Context) *future.Future[string] {
		n++
		if n < 3 {
			return future.Failed[string](errBoom)
		}
		return future.Completed("third")
	})
	v, err := get(t, f)
	require.NoError(t, err)
	assert.Equal(t, "third", v)
}

func TestAsyncRetryIfResult(t *testing.T) {
	g := newRig(t, retry.Config{MaxAttempts: 2, RetryIfResult: func(v any) bool { return v == "bad" }, Jitter: retry.JitterFull, Rand: constant(0)})
	f := g.async(context.Background(), func(context.Context) *future.Future[string] { return future.Completed("bad") })
	v, err := get(t, f)
	assert.Equal(t, "", v, "a failed future carries no value")
	assert.ErrorIs(t, err, retry.ErrRetryableResult)
}

func TestAsyncDisabled(t *testing.T) {
	g := newRig(t, retry.Config{Disabled: true})
	inner := future.Failed[string](errBoom)
	f := g.async(context.Background(), func(context.Context) *future.Future[string] { return inner })
	assert.Same(t, inner, f, "a disabled retry passes the future through")
}

func TestAsyncBudget(t *testing.T) {
	g := newRig(t, retry.Config{MaxAttempts: 3, BudgetRatio: 0.1, BudgetMinRetries: 1, Jitter: retry.JitterFull, Rand: constant(0)})
	f := g.async(context.Background(), func(context.Context) *future.Future[string] { return future.Failed[string](errBoom) })
	_, err := get(t, f)
	var ex *retry.ExhaustedError
	require.ErrorAs(t, err, &ex)
	assert.True(t, ex.Budget, "allowance 1.1: one retry, a second would exceed it")
	assert.Equal(t, 2, ex.Attempts)
}
