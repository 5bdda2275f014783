package hedge

import "time"

// Handle is a read-only view of a [Hedge], for dashboards and tests. It is
// safe for concurrent use; its methods never block and allocate nothing.
type Handle struct{ h *Hedge }

// Snapshot is a copy of a hedge's figures at one moment. The counters only
// grow; they are read one by one, so under load two of them may be a few
// calls apart.
type Snapshot struct {
	// Enabled is false when the hedge is disabled and passes calls through.
	Enabled bool
	// Delay is the configured wait before each extra attempt.
	Delay time.Duration
	// MaxHedged is the configured number of extra attempts a call may start.
	MaxHedged int
	// Calls counts the calls the hedge ran (none while disabled).
	Calls uint64
	// HedgesStarted counts the extra attempts started (the second attempt
	// of a call and the ones after it).
	HedgesStarted uint64
	// HedgeWins counts the calls won by an extra attempt rather than the
	// first one.
	HedgeWins uint64
	// RejectionStops counts the calls in which an attempt was rejected by
	// an inner policy (errors.Is(err, policy.ErrRejected): an adaptive
	// limit, a bulkhead, a rate limiter) before every extra attempt had
	// started, so the hedge started no more.
	RejectionStops uint64
}

// Snapshot returns the hedge's current figures.
func (h *Handle) Snapshot() Snapshot {
	c := h.h
	return Snapshot{
		Enabled:        !c.disabled,
		Delay:          c.delay,
		MaxHedged:      c.attempts - 1,
		Calls:          c.calls.Load(),
		HedgesStarted:  c.hedges.Load(),
		HedgeWins:      c.wins.Load(),
		RejectionStops: c.stopped.Load(),
	}
}

// Enabled reports whether the hedge hedges (false when disabled).
func (h *Handle) Enabled() bool { return !h.h.disabled }

// Delay returns the configured wait before each extra attempt.
func (h *Handle) Delay() time.Duration { return h.h.delay }

// MaxHedged returns the configured number of extra attempts per call.
func (h *Handle) MaxHedged() int { return h.h.attempts - 1 }
