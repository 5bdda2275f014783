package timeout_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// asyncCall records the inner promise and ctx an asynchronous chain got.
type asyncCall struct {
	pr  *future.Promise[string]
	ctx context.Context
}

func (a *asyncCall) fn(ctx context.Context) *future.Future[string] {
	a.ctx = ctx
	a.pr = future.NewPromise[string]()
	return a.pr.Future()
}

func startAsync(ctx context.Context, st policy.Link[string], a *asyncCall) *future.Future[string] {
	return policy.NewAsyncNext([]policy.Link[string]{st}, a.fn).Call(ctx)
}

func TestAsyncInTime(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	a := &asyncCall{}
	fut := startAsync(context.Background(), timeout.Stage[string](f.t), a)
	d, ok := a.ctx.Deadline()
	require.True(t, ok)
	assert.Equal(t, clocktest.Start.Add(time.Second), d)
	assert.Equal(t, 1, f.clk.Pending())
	a.pr.Complete("ok")
	v, err := fut.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "ok", v)
	assert.Zero(t, f.clk.Pending(), "the deadline is released when the inner future completes")

	a = &asyncCall{}
	fut = startAsync(context.Background(), timeout.Stage[string](f.t), a)
	boom := errors.New("boom")
	a.pr.Fail(boom)
	_, err = fut.Get(context.Background())
	assert.Same(t, boom, err)
	assert.Zero(t, f.h.Timeouts())
	assert.Empty(t, f.rec.All())
}

func TestAsyncDeadlineFirst(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	a := &asyncCall{}
	fut := startAsync(context.Background(), timeout.Stage[string](f.t), a)
	f.clk.Advance(time.Second)
	recv(t, fut.Done()) // the future fails at the deadline, without the inner one
	_, err := fut.Get(context.Background())
	assert.ErrorIs(t, err, timeout.ErrCallTimeout)
	assert.ErrorIs(t, a.ctx.Err(), context.DeadlineExceeded, "the inner work's ctx is done")
	assert.Equal(t, int64(1), f.h.Timeouts(), "counted before the future completed")
	assert.Len(t, f.rec.All(), 1)

	// The inner future is not cancelled: it keeps its stages' slots until
	// it completes, and its late outcome changes nothing.
	assert.True(t, a.pr.Complete("late"))
	_, err = fut.Get(context.Background())
	assert.ErrorIs(t, err, timeout.ErrCallTimeout)
	assert.Equal(t, int64(1), f.h.Timeouts())
	assert.Zero(t, f.clk.Pending())
}

func TestAsyncCancel(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	a := &asyncCall{}
	fut := startAsync(context.Background(), timeout.Stage[string](f.t), a)
	innerCancelled := make(chan struct{})
	a.pr.OnCancel(func() { close(innerCancelled) })
	assert.True(t, fut.Cancel())
	<-innerCancelled
	_, err := fut.Get(context.Background())
	assert.ErrorIs(t, err, future.ErrCancelled)
	assert.Zero(t, f.clk.Pending(), "cancelling frees the deadline")
	f.clk.Advance(time.Hour)
	assert.Zero(t, f.h.Timeouts())
}

func TestAsyncCallerCancels(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	a := &asyncCall{}
	fut := startAsync(ctx, timeout.Stage[string](f.t), a)
	cancel()
	<-a.ctx.Done()
	a.pr.Fail(a.ctx.Err()) // the work gives up with its ctx's error
	_, err := fut.Get(context.Background())
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, timeout.ErrCallTimeout)
	assert.Zero(t, f.h.Timeouts())
	assert.Zero(t, drained(f.clk))
}

func TestAsyncInnerDoneAtOnce(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	fut := policy.NewAsyncNext[string](nil, func(context.Context) *future.Future[string] {
		return future.Completed("now")
	})
	got := timeout.Stage[string](f.t).RunAsync(context.Background(), fut)
	v, err := got.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "now", v)
	assert.Zero(t, f.clk.Pending())
}

func TestAsyncPanicReleasesDeadline(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	next := policy.NewAsyncNext[string](nil, func(context.Context) *future.Future[string] { panic("kaboom") })
	assert.PanicsWithValue(t, "kaboom", func() { timeout.Stage[string](f.t).RunAsync(context.Background(), next) })
	assert.Zero(t, f.clk.Pending())
}

func TestAsyncDisabled(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second, Disabled: true})
	a := &asyncCall{}
	fut := startAsync(context.Background(), timeout.Stage[string](f.t), a)
	assert.Same(t, a.pr.Future(), fut, "disabled: the inner future itself")
	_, has := a.ctx.Deadline()
	assert.False(t, has)
	a.pr.Complete("x")
}
