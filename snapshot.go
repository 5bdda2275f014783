package r4c

import (
	"github.com/resilience4cata/r4c/internal/engine"
	"github.com/resilience4cata/r4c/internal/kinds"
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

// Snapshot returns the figures of every instance built so far. Each
// snapshot type marshals to JSON with its enumerations as names and its
// durations as Go duration strings ("250ms"), so a Snapshot can be served
// as it is.
func (r *Registry) Snapshot() Snapshot {
	return Snapshot{
		AdaptiveLimits: engine.Instances(r.e, kinds.AdaptiveLimit, func(l *adaptivelimit.Limiter) adaptivelimit.Snapshot { return l.Handle().Snapshot() }),
		Timeouts:       engine.Instances(r.e, kinds.Timeout, func(t *timeout.Timeout) timeout.Snapshot { return t.Handle().Snapshot() }),
		Bulkheads:      engine.Instances(r.e, kinds.Bulkhead, func(b *bulkhead.Bulkhead) bulkhead.Snapshot { return b.Handle().Snapshot() }),
		RateLimits:     engine.Instances(r.e, kinds.RateLimit, func(l *ratelimit.Limiter) ratelimit.Snapshot { return l.Handle().Snapshot() }),
		Retries:        engine.Instances(r.e, kinds.Retry, func(x *retry.Retry) retry.Snapshot { return x.Handle().Snapshot() }),
		Breakers:       engine.Instances(r.e, kinds.Breaker, func(b *breaker.Breaker) breaker.Snapshot { return b.Handle().Snapshot() }),
		Hedges:         engine.Instances(r.e, kinds.Hedge, func(h *hedge.Hedge) hedge.Snapshot { return h.Handle().Snapshot() }),
		Fallbacks:      engine.Instances(r.e, kinds.Fallback, func(f *fallback.Fallback) fallback.Snapshot { return f.Handle().Snapshot() }),
	}
}
