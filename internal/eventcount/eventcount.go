// Package eventcount counts the events that r4c's metrics adapters export
// as counters: rejections per (kind, instance) and adaptive-limit changes
// per instance. The Prometheus and OpenTelemetry modules share it.
package eventcount

import (
	"maps"
	"sync"
	"sync/atomic"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/events"
)

// Key names one counter: the policy kind and the instance id.
type Key struct{ Kind, Instance string }

// Set is a small cache of counters, one per Key. Reads are lock-free (one
// atomic load of a copy-on-write map and a map lookup) and allocate nothing;
// only the first use of a new key takes the lock and copies the map.
// Instance ids are chosen by the program, so a set stays small. The zero
// Set is empty and ready.
type Set struct {
	mu sync.Mutex // serialises inserts
	m  atomic.Pointer[map[Key]*atomic.Uint64]
}

// Counter returns the counter of k, creating it (at 0) if needed.
func (s *Set) Counter(k Key) *atomic.Uint64 {
	if m := s.m.Load(); m != nil {
		if n, ok := (*m)[k]; ok {
			return n
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.m.Load()
	var next map[Key]*atomic.Uint64
	if old != nil {
		if n, ok := (*old)[k]; ok {
			return n
		}
		next = maps.Clone(*old)
	} else {
		next = make(map[Key]*atomic.Uint64, 1)
	}
	n := new(atomic.Uint64)
	next[k] = n
	s.m.Store(&next)
	return n
}

// Each calls fn with every counter's key and current value, in no order.
func (s *Set) Each(fn func(k Key, n uint64)) {
	m := s.m.Load()
	if m == nil {
		return
	}
	for k, n := range *m {
		fn(k, n.Load())
	}
}

// Counts holds the two event-fed counters of a metrics adapter.
type Counts struct {
	// Rejected counts events.CallRejected by policy kind and instance.
	Rejected Set
	// Changes counts events.LimitChanged by instance (Kind "adaptivelimit").
	Changes Set
}

// Listen counts e. It runs on the publishing goroutine and allocates
// nothing once the instance is known.
func (c *Counts) Listen(e events.Event) {
	switch e := e.(type) {
	case events.CallRejected:
		c.Rejected.Counter(Key{e.Policy, e.Instance}).Add(1)
	case events.LimitChanged:
		c.Changes.Counter(Key{"adaptivelimit", e.Instance}).Add(1)
	}
}

// Known creates (at 0) the counters of every instance of snap that can
// publish them, so that they are exported before the first event.
func (c *Counts) Known(snap r4c.Snapshot) {
	for id := range snap.AdaptiveLimits {
		c.Rejected.Counter(Key{"adaptivelimit", id})
		c.Changes.Counter(Key{"adaptivelimit", id})
	}
	for id := range snap.Bulkheads {
		c.Rejected.Counter(Key{"bulkhead", id})
	}
	for id := range snap.RateLimits {
		c.Rejected.Counter(Key{"ratelimit", id})
	}
	for id := range snap.Breakers {
		c.Rejected.Counter(Key{"breaker", id})
	}
}
