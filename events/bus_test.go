package events_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/resilience4cata/r4c/events"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// rec collects events, safe for concurrent use.
type rec struct {
	mu  sync.Mutex
	got []string
}

func (r *rec) listener(name string) func(events.Event) {
	return func(e events.Event) {
		r.mu.Lock()
		defer r.mu.Unlock()
		_, inst := e.Source()
		r.got = append(r.got, name+":"+inst)
	}
}

func (r *rec) events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

func ev(instance string) events.Event {
	return events.Timeout{Instance: instance, Timeout: time.Second}
}

func TestZeroBusIsReadyAndSilent(t *testing.T) {
	var b events.Bus
	assert.False(t, b.Active())
	b.Publish(ev("x")) // nobody listens: nothing happens

	var nilBus *events.Bus
	assert.False(t, nilBus.Active(), "a nil bus is a bus nobody listens to")
	assert.NotPanics(t, func() { nilBus.Publish(ev("x")) })
}

func TestSubscribeAndStop(t *testing.T) {
	var b events.Bus
	var r rec
	stop := b.Subscribe(r.listener("a"))
	assert.True(t, b.Active())

	b.Publish(ev("1"))
	stop()
	assert.False(t, b.Active(), "inactive again once the last subscriber left")
	b.Publish(ev("2"))
	assert.Equal(t, []string{"a:1"}, r.events())

	assert.NotPanics(t, stop, "stop is idempotent")
	assert.False(t, b.Active())
}

func TestStopIsIdempotentAndPrecise(t *testing.T) {
	var b events.Bus
	var r rec
	stopA := b.Subscribe(r.listener("a"))
	stopB := b.Subscribe(r.listener("b"))
	fn := r.listener("c")
	stopC1 := b.Subscribe(fn)
	stopC2 := b.Subscribe(fn) // the same function twice: two subscriptions

	b.Publish(ev("1"))
	stopB()
	stopB() // a second stop removes nothing else
	stopC1()
	b.Publish(ev("2"))
	stopA()
	stopC2()
	assert.False(t, b.Active())
	b.Publish(ev("3"))
	assert.Equal(t, []string{"a:1", "b:1", "c:1", "c:1", "a:2", "c:2"}, r.events())

	// Resubscribing after everyone left works.
	stop := b.Subscribe(r.listener("d"))
	defer stop()
	b.Publish(ev("4"))
	assert.Equal(t, "d:4", r.events()[6])
}

func TestDeliveryOrder(t *testing.T) {
	var b events.Bus
	var r rec
	for _, name := range []string{"first", "second", "third"} {
		stop := b.Subscribe(r.listener(name))
		defer stop()
	}
	for i := range 3 {
		b.Publish(ev(fmt.Sprint(i)))
	}
	assert.Equal(t, []string{
		"first:0", "second:0", "third:0",
		"first:1", "second:1", "third:1",
		"first:2", "second:2", "third:2",
	}, r.events(), "each event to every subscriber in subscription order, events in publish order")
}

func TestPublishRunsOnTheCallingGoroutine(t *testing.T) {
	var b events.Bus
	delivered := false // no lock: the listener runs before Publish returns
	stop := b.Subscribe(func(events.Event) { delivered = true })
	defer stop()
	b.Publish(ev("x"))
	assert.True(t, delivered)
}

func TestListenersMaySubscribeAndStopDuringPublish(t *testing.T) {
	// No lock is held while listeners run: a listener that subscribes or
	// stops does not deadlock. Publish delivers to the subscribers present
	// when it started.
	var b events.Bus
	var r rec
	var stopLate, stopSecond func()
	stopFirst := b.Subscribe(func(e events.Event) {
		r.listener("first")(e)
		if stopLate == nil {
			stopLate = b.Subscribe(r.listener("late"))
			stopSecond()
		}
	})
	defer stopFirst()
	stopSecond = b.Subscribe(r.listener("second"))
	b.Publish(ev("1"))
	b.Publish(ev("2"))
	stopLate()
	assert.Equal(t, []string{"first:1", "second:1", "first:2", "late:2"}, r.events())
}

func TestListenerPanicPropagates(t *testing.T) {
	var b events.Bus
	stop := b.Subscribe(func(events.Event) { panic("listener bug") })
	defer stop()
	assert.PanicsWithValue(t, "listener bug", func() { b.Publish(ev("x")) })
}

func TestConcurrentSubscribePublishStop(t *testing.T) {
	var b events.Bus
	var delivered atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				stop := b.Subscribe(func(events.Event) { delivered.Add(1) })
				b.Publish(ev("x"))
				stop()
			}
		})
	}
	wg.Wait()
	assert.False(t, b.Active())
	assert.GreaterOrEqual(t, delivered.Load(), int64(400), "each publisher saw at least its own subscriber")
}

func TestActiveCostsNothing(t *testing.T) {
	// Active is one atomic load, which allocates nothing under -race either.
	var b events.Bus
	var nilBus *events.Bus
	allocs := testing.AllocsPerRun(1000, func() {
		if b.Active() || nilBus.Active() {
			t.Fatal("active with no subscriber")
		}
	})
	assert.Zero(t, allocs)
}

func TestKindString(t *testing.T) {
	for k, want := range map[events.Kind]string{
		events.KindLimitChanged:        "limit changed",
		events.KindCallRejected:        "call rejected",
		events.KindBreakerStateChanged: "breaker state changed",
		events.KindRetryAttempt:        "retry attempt",
		events.KindTimeout:             "timeout",
		events.KindHedgeStarted:        "hedge started",
		events.KindFallbackUsed:        "fallback used",
		events.KindStoreStateChanged:   "store state changed",
		0:                              "unknown",
		200:                            "unknown",
	} {
		assert.Equal(t, want, k.String(), "kind %d", uint8(k))
	}
}

func TestEventKindsAndSources(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		e        events.Event
		kind     events.Kind
		policy   string
		instance string
	}{
		{events.LimitChanged{Instance: "al", OldLimit: 20, NewLimit: 18}, events.KindLimitChanged, "adaptivelimit", "al"},
		{events.CallRejected{Policy: "bulkhead", Instance: "bh", Err: boom}, events.KindCallRejected, "bulkhead", "bh"},
		{events.BreakerStateChanged{Instance: "cb", From: "closed", To: "open"}, events.KindBreakerStateChanged, "breaker", "cb"},
		{events.RetryAttempt{Instance: "rt", Attempt: 2, Wait: time.Second, Err: boom}, events.KindRetryAttempt, "retry", "rt"},
		{events.Timeout{Instance: "to", Timeout: time.Second}, events.KindTimeout, "timeout", "to"},
		{events.HedgeStarted{Instance: "hg", Attempt: 2}, events.KindHedgeStarted, "hedge", "hg"},
		{events.FallbackUsed{Instance: "fb", Err: boom}, events.KindFallbackUsed, "fallback", "fb"},
		{events.StoreStateChanged{Policy: "ratelimit", Instance: "rl", Fallback: true, Mode: "local", Err: boom}, events.KindStoreStateChanged, "ratelimit", "rl"},
	} {
		assert.Equal(t, tc.kind, tc.e.Kind(), "%T", tc.e)
		p, inst := tc.e.Source()
		assert.Equal(t, tc.policy, p, "%T", tc.e)
		assert.Equal(t, tc.instance, inst, "%T", tc.e)
	}
}

func TestListenerSwitchesOnType(t *testing.T) {
	var b events.Bus
	var limits []int
	rejected := 0
	stop := b.Subscribe(func(e events.Event) {
		switch e := e.(type) {
		case events.LimitChanged:
			limits = append(limits, e.NewLimit)
		case events.CallRejected:
			rejected++
		}
	})
	defer stop()
	b.Publish(events.LimitChanged{Instance: "x", OldLimit: 20, NewLimit: 21})
	b.Publish(events.CallRejected{Policy: "adaptivelimit", Instance: "x"})
	b.Publish(events.Timeout{Instance: "x"})
	require.Equal(t, []int{21}, limits)
	assert.Equal(t, 1, rejected)
}

func TestPublishPanicLetsEverySubscriberRun(t *testing.T) {
	var b events.Bus
	var got []int
	defer b.Subscribe(func(events.Event) { got = append(got, 1); panic("first") })()
	defer b.Subscribe(func(events.Event) { got = append(got, 2) })()
	defer b.Subscribe(func(events.Event) { got = append(got, 3); panic("second") })()
	defer b.Subscribe(func(events.Event) { got = append(got, 4) })()
	var p any
	func() {
		defer func() { p = recover() }()
		b.Publish(ev("x"))
	}()
	assert.Equal(t, []int{1, 2, 3, 4}, got, "every subscriber got the event")
	assert.Equal(t, "first", p, "the first panic goes on")
}
