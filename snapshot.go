package r4c

import (
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// Snapshot is a point-in-time view of every instance of a registry, keyed
// by instance id. Each instance's figures are read on their own; the
// snapshot as a whole is not one atomic cut across instances.
type Snapshot struct {
	AdaptiveLimits map[string]adaptivelimit.Snapshot
	Timeouts       map[string]timeout.Snapshot
	Bulkheads      map[string]bulkhead.Snapshot
	RateLimits     map[string]ratelimit.Snapshot
	Retries        map[string]retry.Snapshot
	Breakers       map[string]breaker.Snapshot
	Hedges         map[string]hedge.Snapshot
	Fallbacks      map[string]fallback.Snapshot
}

// Snapshot returns the figures of every instance built so far.
func (r *Registry) Snapshot() Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Snapshot{
		AdaptiveLimits: snapshots(r.adaptive, func(l *adaptivelimit.Limiter) adaptivelimit.Snapshot { return l.Handle().Snapshot() }),
		Timeouts:       snapshots(r.timeout, func(t *timeout.Timeout) timeout.Snapshot { return t.Handle().Snapshot() }),
		Bulkheads:      snapshots(r.bulkhead, func(b *bulkhead.Bulkhead) bulkhead.Snapshot { return b.Handle().Snapshot() }),
		RateLimits:     snapshots(r.ratelimit, func(l *ratelimit.Limiter) ratelimit.Snapshot { return l.Handle().Snapshot() }),
		Retries:        snapshots(r.retry, func(x *retry.Retry) retry.Snapshot { return x.Handle().Snapshot() }),
		Breakers:       snapshots(r.breaker, func(b *breaker.Breaker) breaker.Snapshot { return b.Handle().Snapshot() }),
		Hedges:         snapshots(r.hedge, func(h *hedge.Hedge) hedge.Snapshot { return h.Handle().Snapshot() }),
		Fallbacks:      snapshots(r.fallback, func(f *fallback.Fallback) fallback.Snapshot { return f.Handle().Snapshot() }),
	}
}

// snapshots reads every instance of s. r.mu is held.
func snapshots[C any, I any, S any](s *store[C, I], read func(I) S) map[string]S {
	m := make(map[string]S, len(s.instances))
	for id, in := range s.instances {
		m[id] = read(in.inst)
	}
	return m
}
