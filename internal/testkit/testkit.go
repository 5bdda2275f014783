// Package testkit holds the helpers the library's own tests share: an
// event recorder and a wait for armed timers on a ManualClock.
package testkit

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
)

// Events records the events published on a bus, safely from any goroutine.
// Subscribe its Listen method. The zero Events is ready.
type Events struct {
	mu  sync.Mutex
	evs []events.Event
}

// Listen records e.
func (r *Events) Listen(e events.Event) {
	r.mu.Lock()
	r.evs = append(r.evs, e)
	r.mu.Unlock()
}

// All returns a copy of the events recorded so far, in order.
func (r *Events) All() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.Event(nil), r.evs...)
}

// BlockUntil waits until at least n timers are armed on clk, and fails the
// test if that takes more than 10 seconds (a goroutine that never reached
// its wait): tests wait for timers instead of sleeping.
func BlockUntil(tb testing.TB, clk *clocktest.ManualClock, n int) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := clk.BlockUntil(ctx, n); err != nil {
		tb.Fatalf("waiting for %d timers (armed: %d): %v", n, clk.Pending(), err)
	}
}
