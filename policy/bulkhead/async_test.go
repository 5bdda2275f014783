package bulkhead_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type asyncCall struct {
	pr     *future.Promise[string]
	called int
}

func (a *asyncCall) fn(context.Context) *future.Future[string] {
	a.called++
	a.pr = future.NewPromise[string]()
	return a.pr.Future()
}

func startAsync(ctx context.Context, st policy.Link[string], a *asyncCall) *future.Future[string] {
	return policy.NewAsyncNext([]policy.Link[string]{st}, a.fn).Call(ctx)
}

func TestAsyncHoldsSlotUntilComplete(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1})
	a := &asyncCall{}
	fut := startAsync(context.Background(), f.st, a)
	assert.Equal(t, 1, f.h.InFlight(), "the pending future holds its slot")

	b := &asyncCall{}
	rej := startAsync(context.Background(), f.st, b)
	select {
	case <-rej.Done():
	default:
		t.Fatal("a rejection fails at once")
	}
	_, err := rej.Get(context.Background())
	assert.ErrorIs(t, err, bulkhead.ErrFull)
	assert.Zero(t, b.called)

	a.pr.Complete("ok")
	v, err := fut.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "ok", v)
	assert.Zero(t, f.h.InFlight(), "freed before the future completed")

	a = &asyncCall{}
	fut = startAsync(context.Background(), f.st, a)
	boom := errors.New("boom")
	a.pr.Fail(boom)
	_, err = fut.Get(context.Background())
	assert.Same(t, boom, err)
	assert.Zero(t, f.h.InFlight())
}

func TestAsyncCancelFreesSlot(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1})
	a := &asyncCall{}
	fut := startAsync(context.Background(), f.st, a)
	assert.True(t, fut.Cancel())
	_, err := a.pr.Future().Get(context.Background())
	assert.ErrorIs(t, err, future.ErrCancelled, "the inner future is cancelled")
	assert.Zero(t, f.h.InFlight())
	assert.False(t, a.pr.Complete("late"), "completing the cancelled inner future twice changes nothing")
	assert.Zero(t, f.h.InFlight())
}

func TestAsyncPanicFreesSlot(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1})
	next := policy.NewAsyncNext[string](nil, func(context.Context) *future.Future[string] { panic("kaboom") })
	assert.PanicsWithValue(t, "kaboom", func() { f.st.RunAsync(context.Background(), next) })
	assert.Zero(t, f.h.InFlight())
}

func TestAsyncWaitsOnCallingGoroutine(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Second})
	a := &asyncCall{}
	first := startAsync(context.Background(), f.st, a)
	res := make(chan *future.Future[string], 1)
	b := &asyncCall{}
	go func() { res <- startAsync(context.Background(), f.st, b) }()
	f.blockUntil(t, 1)
	a.pr.Complete("a")
	second := recv(t, res)
	assert.Equal(t, 1, f.h.InFlight())
	b.pr.Complete("b")
	v, err := second.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "b", v)
	_, _ = first.Get(context.Background())
	assert.Zero(t, f.h.InFlight())

	// MaxWait passes: a failed future.
	require.True(t, f.b.TryAcquire())
	go func() { res <- startAsync(context.Background(), f.st, &asyncCall{}) }()
	f.blockUntil(t, 1)
	f.clk.Advance(time.Second)
	_, err = recv(t, res).Get(context.Background())
	assert.ErrorIs(t, err, bulkhead.ErrFull)
	f.b.Release()
}

func TestAsyncDisabled(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, Disabled: true})
	a := &asyncCall{}
	fut := startAsync(context.Background(), f.st, a)
	assert.Same(t, a.pr.Future(), fut)
	a.pr.Complete("x")
	assert.Zero(t, f.h.InFlight())
}
