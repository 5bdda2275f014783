package eventcount

import (
	"maps"
	"sync"
	"sync/atomic"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/events"
)

// CallKey names the series of a pipeline's calls of one outcome: the
// pipeline, the outcome and, for rejected calls, the kind of the policy
// that rejected them ("" for the others).
type CallKey struct {
	Pipeline   string
	Outcome    events.CallOutcome
	RejectedBy string
}

// KeyOf returns the key of c; a rejection by an unnamed kind is "other".
func KeyOf(c events.Call) CallKey {
	k := CallKey{Pipeline: c.Pipeline, Outcome: c.Outcome}
	if c.Outcome == events.OutcomeRejected {
		k.RejectedBy = c.RejectedBy
		if k.RejectedBy == "" {
			k.RejectedBy = "other"
		}
	}
	return k
}

// Cache holds one value per key, made by New on first use. Reads are
// lock-free (one atomic load of a copy-on-write map and a lookup) and
// allocate nothing; the first use of a key takes the lock and copies the
// map. Keys come from names the program chose (pipelines, policy kinds), so
// a cache stays small. Set New before the first Get.
type Cache[K comparable, V any] struct {
	New func(K) V
	mu  sync.Mutex
	m   atomic.Pointer[map[K]V]
}

// Get returns the value of k, making it if needed.
func (c *Cache[K, V]) Get(k K) V {
	if m := c.m.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	var next map[K]V
	if old != nil {
		if v, ok := (*old)[k]; ok {
			return v
		}
		next = maps.Clone(*old)
	} else {
		next = make(map[K]V, 4)
	}
	v := c.New(k)
	next[k] = v
	c.m.Store(&next)
	return v
}

// Each calls fn with every key and value, in no order.
func (c *Cache[K, V]) Each(fn func(K, V)) {
	if m := c.m.Load(); m != nil {
		for k, v := range *m {
			fn(k, v)
		}
	}
}

// The outcomes a policy instance reports, as metrics label them.
const (
	OutcomeDropped  = "dropped"
	OutcomeIgnored  = "ignored"
	OutcomeRejected = "rejected"
	OutcomeFailure  = "failure"
	OutcomeTimedOut = "timed_out"
	OutcomeRetried  = "retried"
	OutcomeHedged   = "hedged"
	OutcomeFallback = "fallback"
)

// PolicyOutcomes calls fn with every per-instance outcome count of snap:
// for each instance, by policy kind, the counts its snapshot holds.
//
//	adaptivelimit  dropped, ignored, rejected
//	breaker        failure, ignored, rejected
//	bulkhead       rejected
//	ratelimit      rejected
//	timeout        timed_out
//	retry          retried
//	hedge          hedged
//	fallback       fallback
func PolicyOutcomes(snap r4c.Snapshot, fn func(kind, instance, outcome string, n int64)) {
	for id, s := range snap.AdaptiveLimits {
		fn("adaptivelimit", id, OutcomeDropped, s.Drops)
		fn("adaptivelimit", id, OutcomeIgnored, s.Ignored)
		fn("adaptivelimit", id, OutcomeRejected, s.Rejections)
	}
	for id, s := range snap.Breakers {
		fn("breaker", id, OutcomeFailure, s.FailedCalls)
		fn("breaker", id, OutcomeIgnored, s.IgnoredCalls)
		fn("breaker", id, OutcomeRejected, s.NotPermitted)
	}
	for id, s := range snap.Bulkheads {
		fn("bulkhead", id, OutcomeRejected, s.Rejections)
	}
	for id, s := range snap.RateLimits {
		fn("ratelimit", id, OutcomeRejected, s.Rejections)
	}
	for id, s := range snap.Timeouts {
		fn("timeout", id, OutcomeTimedOut, s.Timeouts)
	}
	for id, s := range snap.Retries {
		fn("retry", id, OutcomeRetried, s.Retries)
	}
	for id, s := range snap.Hedges {
		fn("hedge", id, OutcomeHedged, s.HedgesStarted)
	}
	for id, s := range snap.Fallbacks {
		fn("fallback", id, OutcomeFallback, s.Handled)
	}
}
