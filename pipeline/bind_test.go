package pipeline_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

type args struct {
	a, b int
}

func sum(_ context.Context, x args) (int, error) { return x.a + x.b, nil }

func TestBindPassesTheArgumentAndTheInnerCtx(t *testing.T) {
	_, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "bind").
		Timeout(func(c *timeout.Config) { c.Timeout = time.Minute; c.Cooperative = true }).
		Build()
	require.NoError(t, err)
	b := pipeline.Bind(p, func(ctx context.Context, x args) (int, error) {
		if _, ok := ctx.Deadline(); !ok {
			return 0, errors.New("no deadline: not the timeout's ctx")
		}
		return x.a * x.b, nil
	})
	assert.Same(t, p, b.Pipeline())
	v, err := b.ExecuteContext(context.Background(), args{6, 7})
	require.NoError(t, err)
	assert.Equal(t, 42, v)
	v, err = b.Execute(args{2, 3})
	require.NoError(t, err)
	assert.Equal(t, 6, v)
}

// A retry calls the function again with the same argument.
func TestBindRetriesWithTheSameArgument(t *testing.T) {
	_, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "bind-retry").
		Retry(func(c *retry.Config) { c.MaxAttempts = 3; c.SetZero("wait") }).
		Build()
	require.NoError(t, err)
	var seen []args
	b := pipeline.Bind(p, func(_ context.Context, x args) (int, error) {
		seen = append(seen, x)
		if len(seen) < 3 {
			return 0, errors.New("again")
		}
		return x.a + x.b, nil
	})
	v, err := b.Execute(args{1, 2})
	require.NoError(t, err)
	assert.Equal(t, 3, v)
	assert.Equal(t, []args{{1, 2}, {1, 2}, {1, 2}}, seen)
	// The record went back to the pool empty: the next call sees its own.
	seen = nil
	v, err = b.Execute(args{10, 20})
	require.NoError(t, err)
	assert.Equal(t, 30, v)
	assert.Equal(t, []args{{10, 20}, {10, 20}, {10, 20}}, seen)
}

// Concurrent calls each see their own argument (run with -race).
func TestBindConcurrentCallsKeepTheirArguments(t *testing.T) {
	_, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "bind-conc").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1000; c.MaxLimit = 1000 }).
		Build()
	require.NoError(t, err)
	b := pipeline.Bind(p, sum)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				v, err := b.Execute(args{g, i})
				if err != nil || v != g+i {
					t.Errorf("Execute(%d, %d) = %d, %v", g, i, v, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// A timeout in its default mode answers the caller at the deadline while
// the function runs on: the late function still sees its own argument,
// and calls made meanwhile see theirs.
func TestBindDetachedTimeoutKeepsTheLateCallsArgument(t *testing.T) {
	clk, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "bind-detached").
		Timeout(func(c *timeout.Config) { c.Timeout = time.Second }).
		Build()
	require.NoError(t, err)
	release := make(chan struct{})
	late := make(chan args, 1)
	b := pipeline.Bind(p, func(_ context.Context, x args) (int, error) {
		if x.a == 1 {
			<-release // ignores its ctx
			late <- x
		}
		return x.a + x.b, nil
	})
	done := make(chan error, 1)
	go func() {
		_, err := b.Execute(args{1, 1})
		done <- err
	}()
	waitTimers(t, clk, 1)
	clk.Advance(time.Second)
	require.ErrorIs(t, <-done, timeout.ErrCallTimeout)
	for i := range 100 {
		v, err := b.Execute(args{2, i})
		require.NoError(t, err)
		require.Equal(t, 2+i, v)
	}
	close(release)
	assert.Equal(t, args{1, 1}, <-late)
}

// A hedge's attempts run on goroutines of their own, each with the call's
// argument.
func TestBindHedgedAttemptsSeeTheArgument(t *testing.T) {
	clk, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "bind-hedge").
		Hedge(func(c *hedge.Config) { c.Delay = time.Second; c.MaxHedged = 1 }).
		Build()
	require.NoError(t, err)
	first := make(chan struct{})
	var mu sync.Mutex
	var seen []args
	b := pipeline.Bind(p, func(ctx context.Context, x args) (int, error) {
		mu.Lock()
		seen = append(seen, x)
		n := len(seen)
		mu.Unlock()
		if n == 1 {
			close(first)
			<-ctx.Done() // the slow first attempt, cancelled when the hedge wins
			return 0, ctx.Err()
		}
		return x.a + x.b, nil
	})
	done := make(chan int, 1)
	go func() {
		v, _ := b.Execute(args{4, 5})
		done <- v
	}()
	<-first
	waitTimers(t, clk, 1)
	clk.Advance(time.Second)
	assert.Equal(t, 9, <-done)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []args{{4, 5}, {4, 5}}, seen)
}

func TestBindPanicGoesOnAndTheNextCallWorks(t *testing.T) {
	_, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "bind-panic").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1; c.MinLimit = 1 }).
		Build()
	require.NoError(t, err)
	b := pipeline.Bind(p, func(_ context.Context, x args) (int, error) {
		if x.a < 0 {
			panic("boom")
		}
		return x.a, nil
	})
	assert.PanicsWithValue(t, "boom", func() { _, _ = b.Execute(args{-1, 0}) })
	v, err := b.Execute(args{5, 0})
	require.NoError(t, err, "the slot was freed")
	assert.Equal(t, 5, v)
}

func TestBindNil(t *testing.T) {
	_, err := pipeline.Bind[int](nil, sum).Execute(args{})
	assert.ErrorIs(t, err, pipeline.ErrNilPipeline)
	_, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "bind-nil").Build()
	require.NoError(t, err)
	_, err = pipeline.Bind[int, args](p, nil).ExecuteContext(context.Background(), args{})
	assert.ErrorIs(t, err, pipeline.ErrNilFunc)
}

func TestBindFuturePassesTheArgument(t *testing.T) {
	_, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "bindf").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1; c.MinLimit = 1 }).
		Build()
	require.NoError(t, err)
	pending := map[int]*future.Promise[int]{}
	b := pipeline.BindFuture(p, func(_ context.Context, x args) *future.Future[int] {
		pr := future.NewPromise[int]()
		pending[x.a] = pr
		return pr.Future()
	})
	assert.Same(t, p, b.Pipeline())
	f1 := b.ExecuteFuture(context.Background(), args{1, 0})
	f2 := b.ExecuteFuture(context.Background(), args{2, 0})
	_, err = f2.Get(context.Background())
	require.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded, "the first call holds the only slot")
	require.Len(t, pending, 1)
	pending[1].Complete(10)
	v, err := f1.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 10, v)
	f3 := b.ExecuteFuture(context.Background(), args{3, 0})
	pending[3].Complete(30)
	v, err = f3.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 30, v)
}

// A retry starts the next attempt after ExecuteFuture has returned, with
// the call's argument.
func TestBindFutureRetriesWithTheArgument(t *testing.T) {
	clk, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "bindf-retry").
		Retry(func(c *retry.Config) { c.MaxAttempts = 2; c.Wait = time.Second }).
		Build()
	require.NoError(t, err)
	var mu sync.Mutex
	var seen []args
	b := pipeline.BindFuture(p, func(_ context.Context, x args) *future.Future[int] {
		mu.Lock()
		seen = append(seen, x)
		n := len(seen)
		mu.Unlock()
		if n == 1 {
			return future.Failed[int](errors.New("again"))
		}
		return future.Completed(x.a + x.b)
	})
	f := b.ExecuteFuture(context.Background(), args{20, 22})
	// Another call meanwhile, with another argument.
	g := b.ExecuteFuture(context.Background(), args{1, 1})
	waitTimers(t, clk, 1)
	clk.Advance(time.Second)
	v, err := f.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 42, v)
	v, err = g.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, v)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []args{{20, 22}, {1, 1}, {20, 22}}, seen)
}

func TestBindFutureNil(t *testing.T) {
	_, err := pipeline.BindFuture[int, args](nil, nil).ExecuteFuture(context.Background(), args{}).Get(context.Background())
	assert.ErrorIs(t, err, pipeline.ErrNilPipeline)
	_, reg := manual(t)
	p, err := pipeline.NewBuilder[int](reg, "bindf-nil").Build()
	require.NoError(t, err)
	_, err = pipeline.BindFuture[int, args](p, nil).ExecuteFuture(context.Background(), args{}).Get(context.Background())
	assert.ErrorIs(t, err, pipeline.ErrNilFunc)
}
