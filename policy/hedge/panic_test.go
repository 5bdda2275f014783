package hedge_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/hedge"
)

// A listener of HedgeStarted that panics on the caller's goroutine: the
// panic goes on out of the call, after the attempt in flight is cancelled
// and the hedge's timer stopped; the attempt's goroutine ends (goleak).
func TestHedgeStartedListenerPanic(t *testing.T) {
	clk := clocktest.NewManualClock()
	bus := &events.Bus{}
	defer bus.Subscribe(func(e events.Event) {
		if _, ok := e.(events.HedgeStarted); ok {
			panic("listener")
		}
	})()
	h, err := hedge.New(hedge.Config{Delay: time.Second, MaxHedged: 2}, policy.Env{Clock: clk, Events: bus})
	require.NoError(t, err)
	st := hedge.Stage[string](h)
	returned := make(chan struct{})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if clk.BlockUntil(ctx, 1) == nil {
			clk.Advance(time.Second)
		}
	}()
	var got any
	func() {
		defer func() { got = recover() }()
		_, _, _ = st.Run(context.Background(), policy.NewNext[string](nil, func(ctx context.Context) (string, error) {
			defer close(returned)
			<-ctx.Done() // the first attempt: slow until cancelled
			return "", ctx.Err()
		}, nil))
	}()
	assert.Equal(t, "listener", got)
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("the attempt in flight was not cancelled")
	}
	assert.Zero(t, clk.Pending(), "the hedge's timer is stopped")
}
