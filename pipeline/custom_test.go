package pipeline_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
)

type noop struct{}

func (noop) Execute(ctx context.Context, next policy.Next[int]) (int, error) { return next.Call(ctx) }

func ok() (int, error) { return 42, nil }

func newReg(t testing.TB, opts ...r4c.Option) *r4c.Registry {
	t.Helper()
	reg, err := r4c.NewRegistry(opts...)
	require.NoError(t, err)
	return reg
}

func BenchmarkNoopPipeline(b *testing.B) {
	p, err := pipeline.NewBuilder[int](newReg(b), "noop").Use(noop{}).Use(noop{}).Use(noop{}).Build()
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = p.Execute(ok)
	}
}

func BenchmarkBaseline(b *testing.B) {
	b.ReportAllocs()
	fn := ok
	for b.Loop() {
		_, _ = fn()
	}
}

type recorder struct {
	name string
	log  *[]string
}

func (r recorder) Execute(ctx context.Context, next policy.Next[int]) (int, error) {
	*r.log = append(*r.log, "enter "+r.name)
	v, err := next.Call(ctx)
	*r.log = append(*r.log, "exit "+r.name)
	return v, err
}

func TestCustomPoliciesInUseOrder(t *testing.T) {
	var log []string
	p, err := pipeline.NewBuilder[int](newReg(t), "c").
		Use(recorder{"a", &log}).Use(recorder{"b", &log}).Build()
	require.NoError(t, err)
	_, err = p.Execute(func() (int, error) { log = append(log, "call"); return 0, nil })
	require.NoError(t, err)
	assert.Equal(t, []string{"enter a", "enter b", "call", "exit b", "exit a"}, log)
	assert.Equal(t, []string{"custom", "custom"}, p.Policies())
}

func TestNilFunctionsAndPolicies(t *testing.T) {
	p, err := pipeline.NewBuilder[int](newReg(t), "n").Build()
	require.NoError(t, err)
	_, err = p.Execute(nil)
	assert.ErrorIs(t, err, pipeline.ErrNilFunc)
	_, err = p.ExecuteContext(context.Background(), nil)
	assert.ErrorIs(t, err, pipeline.ErrNilFunc)
	_, err = p.ExecuteAsync(context.Background(), nil).Get(context.Background())
	assert.ErrorIs(t, err, pipeline.ErrNilFunc)
	_, err = p.ExecuteFuture(context.Background(), nil).Get(context.Background())
	assert.ErrorIs(t, err, pipeline.ErrNilFunc)
	_, err = p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] { return nil }).Get(context.Background())
	assert.ErrorIs(t, err, policy.ErrNilFuture)

	_, err = pipeline.NewBuilder[int](newReg(t), "n").Use(nil).Build()
	var ce *r4c.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, r4c.CodeBuilder, ce.Code)
	_, err = pipeline.NewBuilder[int](nil, "n").Build()
	require.ErrorAs(t, err, &ce)
}

func TestExecuteAsyncRunsOnItsOwnGoroutineAndCancels(t *testing.T) {
	p, err := pipeline.NewBuilder[int](newReg(t), "a").Use(noop{}).Build()
	require.NoError(t, err)
	started := make(chan struct{})
	f := p.ExecuteAsync(context.Background(), func(ctx context.Context) (int, error) {
		close(started)
		<-ctx.Done()
		return 0, ctx.Err()
	})
	<-started
	assert.True(t, f.Cancel())
	_, err = f.Get(context.Background())
	assert.ErrorIs(t, err, future.ErrCancelled)
	assert.False(t, f.Cancel(), "a second cancel takes no effect")

	f = p.ExecuteAsync(context.Background(), func(ctx context.Context) (int, error) { return 7, nil })
	v, err := f.Get(context.Background())
	assert.Equal(t, 7, v)
	assert.NoError(t, err)
	f = p.ExecuteAsync(context.Background(), func(ctx context.Context) (int, error) { return 0, errors.New("boom") })
	_, err = f.Get(context.Background())
	assert.EqualError(t, err, "boom")
}

func TestExecuteFutureCallsOnCallerGoroutineAndCancelsTheWork(t *testing.T) {
	p, err := pipeline.NewBuilder[int](newReg(t), "f").Build()
	require.NoError(t, err)
	called := false
	var workCtx context.Context
	pr := future.NewPromise[int]()
	f := p.ExecuteFuture(context.Background(), func(ctx context.Context) *future.Future[int] {
		called, workCtx = true, ctx
		return pr.Future()
	})
	assert.True(t, called, "fn ran before ExecuteFuture returned")
	assert.NoError(t, workCtx.Err())
	assert.True(t, f.Cancel())
	assert.ErrorIs(t, workCtx.Err(), context.Canceled, "cancel reached the work's ctx")
	assert.False(t, pr.Complete(1), "the work's own future was cancelled too")
}
