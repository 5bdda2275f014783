package policy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// nilLink is a broken Link whose RunAsync returns nil.
type nilLink struct{}

func (nilLink) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	return next.Run(ctx)
}
func (nilLink) RunAsync(context.Context, policy.AsyncNext[string]) *future.Future[string] { return nil }

func TestAsyncNextRunsLinksInOrder(t *testing.T) {
	var tr trace
	work := future.NewPromise[string]()
	links := []policy.Link[string]{recLink{name: "a", tr: &tr}, recLink{name: "b", tr: &tr}}
	f := policy.NewAsyncNext(links, func(ctx context.Context) *future.Future[string] {
		tr.add("fn")
		return work.Future()
	}).Call(context.Background())

	assert.Equal(t, []string{"enter a", "enter b", "fn"}, tr.get(), "Call starts the chain on the calling goroutine")
	select {
	case <-f.Done():
		t.Fatal("done before the work completed")
	default:
	}
	work.Complete("v")
	v, err := f.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "a(b(v))", v)
	assert.Equal(t, []string{"enter a", "enter b", "fn", "exit b", "exit a"}, tr.get())
}

func TestAsyncNextNilFuture(t *testing.T) {
	var tr trace
	nilFn := func(context.Context) *future.Future[string] { return nil }
	okFn := func(context.Context) *future.Future[string] { return future.Completed("v") }
	for name, n := range map[string]policy.AsyncNext[string]{
		"fn, no links":         policy.NewAsyncNext(nil, nilFn),
		"fn, behind a link":    policy.NewAsyncNext([]policy.Link[string]{recLink{name: "a", tr: &tr}}, nilFn),
		"link returning nil":   policy.NewAsyncNext([]policy.Link[string]{nilLink{}}, okFn),
		"fn, behind Wrap":      policy.NewAsyncNext([]policy.Link[string]{policy.Wrap(passThrough())}, nilFn),
		"link inside Wrap":     policy.NewAsyncNext([]policy.Link[string]{policy.Wrap(passThrough()), recLink{name: "a", tr: &tr}}, nilFn),
		"fn via Sync directly": policy.NewAsyncNext(nil, nilFn),
	} {
		var f *future.Future[string]
		if name == "fn via Sync directly" {
			_, err := n.Sync().Call(context.Background())
			assert.ErrorIs(t, err, policy.ErrNilFuture, name)
			continue
		}
		f = n.Call(context.Background())
		require.NotNil(t, f, name)
		_, err := f.Get(context.Background())
		assert.ErrorIs(t, err, policy.ErrNilFuture, name)
	}
}

func passThrough() policy.Policy[string] {
	return policy.Func[string](func(ctx context.Context, next policy.Next[string]) (string, error) {
		return next.Call(ctx)
	})
}

func TestWrapAsync(t *testing.T) {
	var tr trace
	boom := errors.New("boom")
	attempts := 0 // touched only by the wrapped policy's goroutine, read after Get
	retry := policy.Func[string](func(ctx context.Context, next policy.Next[string]) (string, error) {
		for {
			attempts++
			v, err := next.Call(ctx)
			if err == nil || attempts == 3 {
				return v, err
			}
		}
	})
	links := []policy.Link[string]{
		recLink{name: "outer", tr: &tr},
		policy.Wrap[string](retry),
		recLink{name: "inner", tr: &tr},
	}
	calls := 0
	fn := func(ctx context.Context) *future.Future[string] {
		calls++
		if calls < 3 {
			return future.Failed[string](boom)
		}
		// Completed later, on another goroutine.
		p := future.NewPromise[string]()
		go p.Complete("v")
		return p.Future()
	}
	v, err := policy.NewAsyncNext(links, fn).Call(context.Background()).Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "outer(inner(v))", v)
	assert.Equal(t, 3, attempts)
	assert.Equal(t, 3, calls)
	assert.Equal(t, []string{
		"enter outer",
		"enter inner", "exit inner",
		"enter inner", "exit inner",
		"enter inner", "exit inner",
		"exit outer",
	}, tr.get())

	// Failure of every attempt reaches the caller.
	calls, attempts = -10, 0
	_, err = policy.NewAsyncNext(links, fn).Call(context.Background()).Get(context.Background())
	assert.ErrorIs(t, err, boom)
}

func TestWrapAsyncCancelReachesTheWork(t *testing.T) {
	// outer (an async link) -> Wrap(policy) -> the work. Cancelling the
	// caller's future cancels the wrapped policy's ctx, and the work's own
	// future, whose OnCancel stops the work.
	var tr trace
	policyCtxDone := make(chan error, 1)
	policyReturned := make(chan struct{})
	p := policy.Func[string](func(ctx context.Context, next policy.Next[string]) (string, error) {
		defer close(policyReturned)
		v, err := next.Call(ctx)
		<-ctx.Done()
		policyCtxDone <- ctx.Err()
		return v, err
	})
	started := make(chan struct{})
	workCancelled := make(chan struct{})
	fn := func(ctx context.Context) *future.Future[string] {
		pr := future.NewPromise[string]()
		pr.OnCancel(func() { close(workCancelled) })
		close(started)
		return pr.Future()
	}
	links := []policy.Link[string]{recLink{name: "outer", tr: &tr}, policy.Wrap[string](p)}
	f := policy.NewAsyncNext(links, fn).Call(context.Background())
	<-started

	assert.True(t, f.Cancel())
	_, err := f.Get(context.Background())
	assert.ErrorIs(t, err, future.ErrCancelled)
	assert.ErrorIs(t, err, context.Canceled)
	<-workCancelled // the work's future was cancelled, not abandoned
	assert.ErrorIs(t, <-policyCtxDone, context.Canceled)
	<-policyReturned // the wrapped policy's goroutine ends
	assert.False(t, f.Cancel(), "a second Cancel reports false")
}

func TestWrapAsyncPolicyRejects(t *testing.T) {
	rejected := &policy.RejectedError{Kind: "custom", Instance: "x", Err: errors.New("custom: no")}
	p := policy.Func[string](func(context.Context, policy.Next[string]) (string, error) {
		return "", rejected
	})
	called := false
	f := policy.NewAsyncNext([]policy.Link[string]{policy.Wrap[string](p)},
		func(context.Context) *future.Future[string] { called = true; return future.Completed("v") }).
		Call(context.Background())
	_, err := f.Get(context.Background())
	assert.ErrorIs(t, err, policy.ErrRejected)
	assert.False(t, called)
}

func TestAsyncNextSyncCancelsTheFutureWhenCtxEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	work := future.NewPromise[string]()
	workCancelled := false
	work.OnCancel(func() { workCancelled = true })
	next := policy.NewAsyncNext(nil, func(context.Context) *future.Future[string] { return work.Future() }).Sync()

	errc := make(chan error, 1)
	go func() {
		_, err := next.Call(ctx)
		errc <- err
	}()
	cancel()
	assert.Equal(t, context.Canceled, <-errc, "the caller's own ctx error, unchanged")
	<-work.Future().Done()
	assert.True(t, workCancelled)
	_, err := work.Future().Get(context.Background())
	assert.ErrorIs(t, err, future.ErrCancelled)
}

func TestAsyncNextSyncReturnsTheOutcome(t *testing.T) {
	boom := errors.New("boom")
	v, err := policy.NewAsyncNext(nil, func(context.Context) *future.Future[int] { return future.Completed(3) }).
		Sync().Call(context.Background())
	assert.NoError(t, err)
	assert.Equal(t, 3, v)

	_, err = policy.NewAsyncNext(nil, func(context.Context) *future.Future[int] { return future.Failed[int](boom) }).
		Sync().Call(context.Background())
	assert.Same(t, boom, err)

	// Already complete wins over a done ctx.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v, err = policy.NewAsyncNext(nil, func(context.Context) *future.Future[int] { return future.Completed(4) }).
		Sync().Call(ctx)
	assert.NoError(t, err)
	assert.Equal(t, 4, v)
}
