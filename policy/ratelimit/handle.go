package ratelimit

import "time"

// Handle reads a [Limiter]'s settings and figures. It is safe for
// concurrent use; its methods never block and allocate nothing.
type Handle struct{ l *Limiter }

// NewHandle returns the handle of l.
func NewHandle(l *Limiter) *Handle { return &Handle{l: l} }

// Available returns how many permits could be taken now (it reads the
// clock once).
func (h *Handle) Available() int { return h.l.Available() }

// Snapshot returns the limiter's settings and figures now (it reads the
// clock once).
func (h *Handle) Snapshot() Snapshot {
	l := h.l
	return Snapshot{
		Limit:      l.limit,
		Period:     l.period,
		Burst:      l.burst,
		MaxWait:    l.maxWait,
		Available:  l.Available(),
		Rejections: l.rejections.Load(),
	}
}

// Snapshot is a [Limiter]'s settings and figures.
type Snapshot struct {
	// Limit is how many permits come free per Period.
	Limit int
	// Period is the span Limit is counted over.
	Period time.Duration
	// Burst is the most permits that can be taken at once.
	Burst int
	// MaxWait is how long a call may wait for a permit (0: reject at once).
	MaxWait time.Duration
	// Available is how many permits could be taken when the snapshot was
	// taken, from 0 to Burst.
	Available int
	// Rejections is how many calls were refused since the limiter was
	// built: each *RateLimitedError returned and each false Allow. A wait
	// ended by the caller's ctx is not a rejection.
	Rejections uint64
}

// Handle returns a handle on l, like [NewHandle].
func (l *Limiter) Handle() *Handle { return NewHandle(l) }
