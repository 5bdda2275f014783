package hedge

import (
	"encoding/json"
	"time"
)

// Handle is a read-only view of a [Hedge], for dashboards and tests. It is
// safe for concurrent use; its methods never block and allocate nothing.
type Handle struct{ h *Hedge }

// Snapshot is a copy of a hedge's figures at one moment. The counters only
// grow; they are read one by one, so under load two of them may be a few
// calls apart. It marshals to JSON with Delay as a Go duration string
// ("300ms").
type Snapshot struct {
	// Disabled reports whether the hedge runs every call once, as if it
	// were not there.
	Disabled bool
	// Delay is the configured wait before each extra attempt.
	Delay time.Duration
	// MaxHedged is the configured number of extra attempts a call may start.
	MaxHedged int
	// Calls counts the calls the hedge ran (none while disabled).
	Calls int64
	// HedgesStarted counts the extra attempts started (the second attempt
	// of a call and the ones after it).
	HedgesStarted int64
	// HedgeWins counts the calls won by an extra attempt rather than the
	// first one.
	HedgeWins int64
	// RejectionStops counts the calls in which an attempt was rejected by
	// an inner policy (errors.Is(err, policy.ErrRejected): an adaptive
	// limit, a bulkhead, a rate limiter) before every extra attempt had
	// started, so the hedge started no more.
	RejectionStops int64
}

// MarshalJSON writes s as a JSON object with its fields' names, Delay as a
// duration string such as "300ms".
func (s Snapshot) MarshalJSON() ([]byte, error) {
	type plain Snapshot
	return json.Marshal(struct {
		plain
		Delay string
	}{plain(s), s.Delay.String()})
}

// Config returns the configuration the hedge was built with, defaults
// filled in.
func (h *Handle) Config() Config { return h.h.cfg }

// Snapshot returns the hedge's current figures.
func (h *Handle) Snapshot() Snapshot {
	c := h.h
	return Snapshot{
		Disabled:       c.disabled,
		Delay:          c.delay,
		MaxHedged:      c.attempts - 1,
		Calls:          int64(c.calls.Load()),
		HedgesStarted:  int64(c.hedges.Load()),
		HedgeWins:      int64(c.wins.Load()),
		RejectionStops: int64(c.stopped.Load()),
	}
}

// Delay returns the configured wait before each extra attempt.
func (h *Handle) Delay() time.Duration { return h.h.delay }

// MaxHedged returns the configured number of extra attempts per call.
func (h *Handle) MaxHedged() int { return h.h.attempts - 1 }
