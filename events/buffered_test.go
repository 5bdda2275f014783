package events_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
)

// slowListener blocks on every event until released, and tells when it
// has entered.
type slowListener struct {
	entered chan string
	release chan struct{}
	mu      sync.Mutex
	got     []string
}

func newSlowListener() *slowListener {
	return &slowListener{entered: make(chan string, 100), release: make(chan struct{})}
}

func (s *slowListener) fn(e events.Event) {
	_, inst := e.Source()
	s.entered <- inst
	<-s.release
	s.mu.Lock()
	s.got = append(s.got, inst)
	s.mu.Unlock()
}

func (s *slowListener) handled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

func TestBufferedMovesASlowListenerOffTheCaller(t *testing.T) {
	slow := newSlowListener()
	b := events.NewBuffered(2, slow.fn)
	var bus events.Bus
	stop := bus.Subscribe(b.Listen)
	defer stop()

	bus.Publish(ev("1"))
	require.Equal(t, "1", <-slow.entered) // the listener is busy with 1, off this goroutine
	// Publish returns at once while the listener is stuck: 2 and 3 fill the
	// buffer, 4 and 5 are dropped and counted.
	for i := 2; i <= 5; i++ {
		bus.Publish(ev(fmt.Sprint(i)))
	}
	assert.Equal(t, uint64(2), b.Dropped())
	assert.Empty(t, slow.handled())

	close(slow.release)
	b.Close() // drains what is queued, in order, then ends the goroutine
	assert.Equal(t, []string{"1", "2", "3"}, slow.handled())
	assert.Equal(t, uint64(2), b.Dropped())
}

func TestBufferedDeliversInOrder(t *testing.T) {
	var r rec
	b := events.NewBuffered(64, r.listener("b"))
	var want []string
	for i := range 50 {
		b.Listen(ev(fmt.Sprint(i)))
		want = append(want, fmt.Sprint("b:", i))
	}
	b.Close()
	assert.Equal(t, want, r.events())
	assert.Zero(t, b.Dropped())
}

func TestBufferedSizeAtLeastOne(t *testing.T) {
	for _, size := range []int{0, -5} {
		slow := newSlowListener()
		b := events.NewBuffered(size, slow.fn)
		b.Listen(ev("1"))
		<-slow.entered
		b.Listen(ev("2")) // the one slot
		b.Listen(ev("3")) // dropped
		assert.Equal(t, uint64(1), b.Dropped(), "size %d", size)
		close(slow.release)
		b.Close()
		assert.Equal(t, []string{"1", "2"}, slow.handled(), "size %d", size)
	}
}

func TestBufferedCloseIsIdempotentAndDropsLateEvents(t *testing.T) {
	var r rec
	b := events.NewBuffered(4, r.listener("b"))
	b.Listen(ev("1"))
	b.Close()
	b.Close() // idempotent, returns at once
	b.Listen(ev("late"))
	assert.Equal(t, uint64(1), b.Dropped(), "an event after Close is dropped and counted")
	assert.Equal(t, []string{"b:1"}, r.events())
}

func TestBufferedCloseWhileListening(t *testing.T) {
	// Listen racing Close never panics (no send on a closed channel) and
	// every event is either handled or counted as dropped.
	for range 20 {
		var mu sync.Mutex
		handled := 0
		b := events.NewBuffered(8, func(events.Event) { mu.Lock(); handled++; mu.Unlock() })
		var wg sync.WaitGroup
		const publishers, each = 4, 50
		for range publishers {
			wg.Go(func() {
				for range each {
					b.Listen(ev("x"))
				}
			})
		}
		wg.Go(b.Close)
		wg.Wait()
		b.Close()
		mu.Lock()
		total := uint64(handled) + b.Dropped()
		mu.Unlock()
		require.Equal(t, uint64(publishers*each), total)
	}
}

func TestBufferedConcurrentCloseCallsAllWait(t *testing.T) {
	slow := newSlowListener()
	b := events.NewBuffered(1, slow.fn)
	b.Listen(ev("1"))
	<-slow.entered
	closed := make(chan struct{}, 2)
	for range 2 {
		go func() { b.Close(); closed <- struct{}{} }()
	}
	select {
	case <-closed:
		t.Fatal("Close returned while the listener was still busy")
	default:
	}
	close(slow.release)
	<-closed
	<-closed
	assert.Equal(t, []string{"1"}, slow.handled())
}

func BenchmarkPublishInactive(b *testing.B) {
	var bus events.Bus
	b.ReportAllocs()
	for b.Loop() {
		if bus.Active() {
			bus.Publish(ev("x"))
		}
	}
}

func BenchmarkPublishOneSubscriber(b *testing.B) {
	var bus events.Bus
	n := 0
	stop := bus.Subscribe(func(events.Event) { n++ })
	defer stop()
	e := ev("x")
	b.ReportAllocs()
	for b.Loop() {
		bus.Publish(e)
	}
}
