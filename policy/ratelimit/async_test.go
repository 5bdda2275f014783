package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAsync(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1, Period: time.Second, MaxWait: time.Second})
	pr := future.NewPromise[string]()
	called := 0
	next := policy.NewAsyncNext([]policy.Link[string]{f.st}, func(context.Context) *future.Future[string] {
		called++
		return pr.Future()
	})
	fut := next.Call(context.Background())
	assert.Same(t, pr.Future(), fut, "nothing to hold: the inner future itself")
	pr.Complete("ok")

	// The next permit is 1s away: the call waits on the calling goroutine.
	res := make(chan *future.Future[string], 1)
	go func() { res <- next.Call(context.Background()) }()
	blockUntil(t, f.clk, 1)
	f.clk.Advance(time.Second)
	v, err := recv(t, res).Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "ok", v)
	assert.Equal(t, 2, called)

	// Beyond MaxWait: a failed future at once.
	l2, _ := ratelimit.New(ratelimit.Config{Limit: 1, Period: time.Hour}, policy.Env{Clock: f.clk})
	st2 := ratelimit.Stage[string](l2)
	next2 := policy.NewAsyncNext([]policy.Link[string]{st2}, func(context.Context) *future.Future[string] {
		called++
		return future.Completed("x")
	})
	_, err = next2.Call(context.Background()).Get(context.Background())
	require.NoError(t, err)
	_, err = next2.Call(context.Background()).Get(context.Background())
	assert.ErrorIs(t, err, ratelimit.ErrRateLimited)
	assert.Equal(t, 3, called)
}
