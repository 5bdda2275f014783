package r4c

import (
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// Snapshot is a point-in-time view of every instance of a registry, keyed
// by instance id. Each figure is read atomically on its own; the snapshot as
// a whole is not one atomic cut across instances.
type Snapshot struct {
	AdaptiveLimits map[string]adaptivelimit.Snapshot
}

// Snapshot returns the figures of every instance built so far.
func (r *Registry) Snapshot() Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Snapshot{
		AdaptiveLimits: map[string]adaptivelimit.Snapshot{},
	}
	each(r.adaptive, func(id string, l *adaptivelimit.Limiter) { s.AdaptiveLimits[id] = l.Handle().Snapshot() })
	return s
}
