package events_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
)

type ctxKey struct{}

func TestPublishContextReachesContextListenersOnly(t *testing.T) {
	var bus events.Bus
	ctx := context.WithValue(context.Background(), ctxKey{}, "call-1")
	var plain []string
	var withCtx []any
	stop1 := bus.Subscribe(func(e events.Event) { _, id := e.Source(); plain = append(plain, id) })
	stop2 := bus.SubscribeContext(func(c context.Context, e events.Event) { withCtx = append(withCtx, c.Value(ctxKey{})) })
	defer stop1()
	bus.PublishContext(ctx, events.Timeout{Instance: "a"})
	bus.Publish(events.Timeout{Instance: "b"})
	//lint:ignore SA1012 the test passes a nil ctx on purpose: it becomes Background
	bus.PublishContext(nil, events.Timeout{Instance: "c"}) //nolint:staticcheck // a nil ctx becomes Background
	assert.Equal(t, []string{"a", "b", "c"}, plain)
	assert.Equal(t, []any{"call-1", nil, nil}, withCtx)

	stop2()
	stop2() // idempotent
	bus.PublishContext(ctx, events.Timeout{Instance: "d"})
	assert.Len(t, withCtx, 3)
	assert.Equal(t, []string{"a", "b", "c", "d"}, plain)
	assert.True(t, bus.Active())
	stop1()
	assert.False(t, bus.Active())
}

func TestPublishContextOnNilOrIdleBus(t *testing.T) {
	var nilBus *events.Bus
	nilBus.PublishContext(context.Background(), events.Timeout{}) // no panic
	var idle events.Bus
	idle.PublishContext(context.Background(), events.Timeout{})
	assert.False(t, idle.Active())
}

func TestBufferedContextKeepsEachEventsContext(t *testing.T) {
	got := make(chan any, 3)
	b := events.NewBufferedContext(4, func(c context.Context, e events.Event) { got <- c.Value(ctxKey{}) })
	var bus events.Bus
	stop := bus.SubscribeContext(b.ListenContext)
	bus.PublishContext(context.WithValue(context.Background(), ctxKey{}, 1), events.Timeout{})
	bus.PublishContext(context.WithValue(context.Background(), ctxKey{}, 2), events.Timeout{})
	stop()
	b.Listen(events.Timeout{}) // without a ctx: Background
	b.Close()
	require.Len(t, got, 3)
	assert.Equal(t, 1, <-got)
	assert.Equal(t, 2, <-got)
	assert.Nil(t, <-got)
	assert.Zero(t, b.Dropped())
}

func TestCallOutcomeNames(t *testing.T) {
	var names []string
	for _, o := range events.CallOutcomes() {
		names = append(names, o.String())
	}
	assert.Equal(t, []string{"success", "failure", "timeout", "rejected", "cancelled"}, names)
	assert.Equal(t, "unknown", events.CallOutcome(9).String())
}

type countCalls struct{ n int }

func (c *countCalls) ObserveCall(context.Context, events.Call) { c.n++ }

func TestObserveCallsAddAndStop(t *testing.T) {
	var bus events.Bus
	var nilBus *events.Bus
	assert.False(t, nilBus.CallsObserved())
	nilBus.ObserveCall(context.Background(), events.Call{}) // no panic
	a, b := &countCalls{}, &countCalls{}
	stopA := bus.ObserveCalls(a)
	stopB := bus.ObserveCalls(b)
	bus.ObserveCall(context.Background(), events.Call{Pipeline: "p"})
	stopA()
	stopA() // idempotent
	bus.ObserveCall(context.Background(), events.Call{Pipeline: "p"})
	assert.Equal(t, 1, a.n)
	assert.Equal(t, 2, b.n)
	assert.True(t, bus.CallsObserved())
	stopB()
	assert.False(t, bus.CallsObserved())
	bus.ObserveCall(context.Background(), events.Call{Pipeline: "p"})
	assert.Equal(t, 2, b.n)
}
