package fallback_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/fallback"
)

func runAsync(t *testing.T, f *fallback.Fallback, ctx context.Context, inner *future.Future[string]) *future.Future[string] {
	t.Helper()
	return stageOf[string](t, f).RunAsync(ctx, policy.NewAsyncNext[string](nil, func(context.Context) *future.Future[string] { return inner }))
}

func isDone[T any](f *future.Future[T]) bool {
	select {
	case <-f.Done():
		return true
	default:
		return false
	}
}

func TestAsyncHandledOnCompletion(t *testing.T) {
	fx := newFixture(t, fallback.Return("cached"))
	pr := future.NewPromise[string]()
	fut := runAsync(t, fx.f, context.Background(), pr.Future())
	require.False(t, isDone(fut))
	pr.Fail(errDown)
	require.True(t, isDone(fut), "completed on the completing goroutine")
	v, err := fut.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "cached", v)
	assert.Equal(t, int64(1), fx.f.Handle().Snapshot().Handled, "counted before the future completed")
	assert.Len(t, fx.events, 1)
}

func TestAsyncPassesSuccessAndUnhandled(t *testing.T) {
	fx := newFixture(t, fallback.Return("cached"), func(c *fallback.Config) { c.HandleOn = []error{errDown} })
	pr := future.NewPromise[string]()
	fut := runAsync(t, fx.f, context.Background(), pr.Future())
	pr.Complete("fresh")
	v, err := fut.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "fresh", v)

	pr = future.NewPromise[string]()
	fut = runAsync(t, fx.f, context.Background(), pr.Future())
	pr.Fail(errOther)
	_, err = fut.Get(context.Background())
	assert.ErrorIs(t, err, errOther)
	assert.Zero(t, fx.f.Handle().Snapshot().Handled)
}

func TestAsyncCompleteAtOnce(t *testing.T) {
	fx := newFixture(t, fallback.Call(func(context.Context, error) (string, error) { return "func", nil }))
	inner := future.Completed("x")
	assert.Same(t, inner, runAsync(t, fx.f, context.Background(), inner), "nothing to handle: the inner future itself")

	fut := runAsync(t, fx.f, context.Background(), future.Failed[string](errDown))
	require.True(t, isDone(fut))
	v, err := fut.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "func", v)

	fx = newFixture(t, fallback.Call(func(context.Context, error) (string, error) { return "", errOther }))
	_, err = runAsync(t, fx.f, context.Background(), future.Failed[string](errDown)).Get(context.Background())
	assert.ErrorIs(t, err, errOther)
}

func TestAsyncCancelReachesInnerAndIsNotHandled(t *testing.T) {
	fx := newFixture(t, fallback.Return("cached"))
	pr := future.NewPromise[string]()
	fut := runAsync(t, fx.f, context.Background(), pr.Future())
	require.True(t, fut.Cancel())
	_, err := pr.Future().Get(context.Background())
	assert.ErrorIs(t, err, future.ErrCancelled, "the inner future is cancelled")
	_, err = fut.Get(context.Background())
	assert.ErrorIs(t, err, future.ErrCancelled)
	assert.Zero(t, fx.f.Handle().Snapshot().Handled)
}

func TestAsyncCallerCancellationIsNotHandled(t *testing.T) {
	fx := newFixture(t, fallback.Return("cached"))
	ctx, cancel := context.WithCancel(context.Background())
	pr := future.NewPromise[string]()
	fut := runAsync(t, fx.f, ctx, pr.Future())
	cancel()
	pr.Fail(ctx.Err())
	_, err := fut.Get(context.Background())
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, fx.f.Handle().Snapshot().Handled)
}

func TestAsyncFuncPanicFailsFutureAndGoesOn(t *testing.T) {
	fx := newFixture(t, fallback.Call(func(context.Context, error) (string, error) { panic("boom") }))
	pr := future.NewPromise[string]()
	fut := runAsync(t, fx.f, context.Background(), pr.Future())
	assert.PanicsWithValue(t, "boom", func() { pr.Fail(errDown) }, "the panic goes on on the completing goroutine")
	require.True(t, isDone(fut))
	_, err := fut.Get(context.Background())
	assert.ErrorIs(t, err, errDown, "waiters are released with the handled error")
}

func TestAsyncDisabled(t *testing.T) {
	fx := newFixture(t, func(c *fallback.Config) { c.Disabled = true })
	inner := future.NewPromise[string]().Future()
	assert.Same(t, inner, runAsync(t, fx.f, context.Background(), inner))
}
