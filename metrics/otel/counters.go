package r4cotel

import (
	"maps"
	"sync"
	"sync/atomic"
)

// key names one event-fed counter: the policy kind and the instance id.
type key struct{ kind, instance string }

// counterSet is the small cache behind the event-fed counters: one atomic
// counter per (kind, instance). Reads are lock-free (one atomic load of a
// copy-on-write map and a map lookup) and allocate nothing; only the first
// event or scrape of a new instance takes the lock and copies the map.
// Instance ids are chosen by the program, so the set stays small.
type counterSet struct {
	mu sync.Mutex // serialises inserts
	m  atomic.Pointer[map[key]*atomic.Uint64]
}

// counter returns the counter of k, creating it (at 0) if needed.
func (c *counterSet) counter(k key) *atomic.Uint64 {
	if m := c.m.Load(); m != nil {
		if n, ok := (*m)[k]; ok {
			return n
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	var next map[key]*atomic.Uint64
	if old != nil {
		if n, ok := (*old)[k]; ok {
			return n
		}
		next = maps.Clone(*old)
	} else {
		next = make(map[key]*atomic.Uint64, 1)
	}
	n := new(atomic.Uint64)
	next[k] = n
	c.m.Store(&next)
	return n
}

// each calls fn with every counter's key and current value, in no order.
func (c *counterSet) each(fn func(k key, n uint64)) {
	m := c.m.Load()
	if m == nil {
		return
	}
	for k, n := range *m {
		fn(k, n.Load())
	}
}
