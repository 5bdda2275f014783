package breaker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/breaker"
)

func (g *rig) async(ctx context.Context, fn func(context.Context) *future.Future[string]) *future.Future[string] {
	return g.st.RunAsync(ctx, policy.NewAsyncNext[string](nil, fn))
}

func pending(pr *future.Promise[string]) func(context.Context) *future.Future[string] {
	return func(context.Context) *future.Future[string] { return pr.Future() }
}

func TestAsyncRecordsOnCompletion(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 2, MinimumCalls: 2, SlowCallDuration: time.Second, SlowCallRateThreshold: 1})
	pr1, pr2 := future.NewPromise[string](), future.NewPromise[string]()
	f1 := g.async(context.Background(), pending(pr1))
	f2 := g.async(context.Background(), pending(pr2))
	assert.Equal(t, 0, g.h.Snapshot().BufferedCalls, "nothing recorded before completion")
	g.clk.Advance(2 * time.Second) // both take 2s: slow
	pr1.Complete("a")
	v, err := f1.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "a", v)
	assert.Equal(t, 1, g.h.Snapshot().SlowCalls, "recorded before the future completed")
	pr2.Complete("b")
	_, err = f2.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, breaker.StateOpen, g.h.State(), "latency measured to completion")
}

func TestAsyncRefusal(t *testing.T) {
	g := newRig(t, breaker.Config{})
	g.h.TransitionToOpen()
	called := false
	fn := func(context.Context) *future.Future[string] { called = true; return future.Completed("x") }
	f := g.async(context.Background(), fn)
	_, err := f.Get(context.Background())
	assert.ErrorIs(t, err, breaker.ErrOpen)
	assert.ErrorIs(t, err, policy.ErrRejected)
	assert.False(t, called)
	assert.Same(t, f, g.async(context.Background(), fn), "refusals share one failed future")
	assert.False(t, f.Cancel())

	g.h.TransitionToForcedOpen()
	_, err = g.async(context.Background(), fn).Get(context.Background())
	var oe *breaker.OpenError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, breaker.StateForcedOpen, oe.State())

	g.h.TransitionToHalfOpen()
	pr := future.NewPromise[string]()
	for range 10 {
		g.async(context.Background(), pending(pr))
	}
	_, err = g.async(context.Background(), fn).Get(context.Background())
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, breaker.StateHalfOpen, oe.State())
	pr.Complete("done")
	assert.Equal(t, breaker.StateClosed, g.h.State())
	assert.Equal(t, 4, g.rejections())
}

func TestAsyncCancel(t *testing.T) {
	g := newRig(t, breaker.Config{HalfOpenCalls: 1})
	g.h.TransitionToHalfOpen()
	pr := future.NewPromise[string]()
	f := g.async(context.Background(), pending(pr))
	require.True(t, f.Cancel())
	_, err := pr.Future().Get(context.Background())
	assert.ErrorIs(t, err, future.ErrCancelled, "the inner future is cancelled")
	s := g.h.Snapshot()
	assert.Equal(t, 0, s.BufferedCalls, "a cancelled call is ignored")
	assert.Equal(t, 0, s.TrialCalls, "its trial permit came back")
	assert.Equal(t, breaker.StateHalfOpen, s.State)
}

func TestAsyncCallerCancellation(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 1, MinimumCalls: 1})
	ctx, cancel := context.WithCancel(context.Background())
	pr := future.NewPromise[string]()
	f := g.async(ctx, pending(pr))
	cancel()
	pr.Fail(context.Canceled)
	_, err := f.Get(context.Background())
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, breaker.StateClosed, g.h.State())
	assert.Equal(t, 0, g.h.Snapshot().BufferedCalls)
}

func TestAsyncFailure(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 1, MinimumCalls: 1})
	f := g.async(context.Background(), func(context.Context) *future.Future[string] { return future.Failed[string](errBoom) })
	_, err := f.Get(context.Background())
	assert.ErrorIs(t, err, errBoom)
	assert.Equal(t, breaker.StateOpen, g.h.State())
}

func TestAsyncDisabled(t *testing.T) {
	g := newRig(t, breaker.Config{Disabled: true})
	inner := future.Failed[string](errBoom)
	assert.Same(t, inner, g.async(context.Background(), func(context.Context) *future.Future[string] { return inner }))
}

func TestAsyncPanic(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 1, MinimumCalls: 1})
	assert.Panics(t, func() {
		g.async(context.Background(), func(context.Context) *future.Future[string] { panic("oops") })
	})
	assert.Equal(t, breaker.StateOpen, g.h.State(), "a panic while starting is a failure")
}
