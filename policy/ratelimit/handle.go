package ratelimit

import (
	"encoding/json"
	"time"
)

// Handle reads a [Limiter]'s settings and figures. It is safe for
// concurrent use; its methods never block and allocate nothing.
type Handle struct{ l *Limiter }

// NewHandle returns the handle of l.
func NewHandle(l *Limiter) *Handle { return &Handle{l: l} }

// Limiter returns the rate limiter h reads, so that code holding only the
// handle (the registry's reg.RateLimit) can take permits from the same
// instance, with [Limiter.Allow] and [Limiter.Wait] or through [Stage].
func (h *Handle) Limiter() *Limiter { return h.l }

// Config returns the limiter's configuration, defaults filled in: as built,
// with the changes of its setters and of Registry.Reload.
func (h *Handle) Config() Config {
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	return h.l.cfg
}

// Available returns how many permits could be taken now (it reads the
// clock once).
func (h *Handle) Available() int { return h.l.Available() }

// Snapshot returns the limiter's settings and figures now (it reads the
// clock once).
func (h *Handle) Snapshot() Snapshot {
	l := h.l
	e, _ := l.load()
	s := Snapshot{
		Disabled:   l.disabled,
		Limit:      e.limit,
		Period:     e.period,
		Burst:      e.burst,
		MaxWait:    e.maxWait,
		Available:  l.Available(),
		Rejections: int64(l.rejections.Load()),
	}
	if r := l.remote; r != nil {
		s.Store = true
		s.Fallback = r.failing.Load()
		s.StoreFailures = int64(r.failures.Load())
		s.Fallbacks = int64(r.fallbacks.Load())
	}
	return s
}

// Snapshot is a [Limiter]'s settings and figures. It marshals to JSON with
// Period and MaxWait as Go duration strings ("1s").
type Snapshot struct {
	// Disabled reports whether the limiter lets every call pass without
	// taking a permit.
	Disabled bool
	// Limit is how many permits come free per Period.
	Limit int
	// Period is the span Limit is counted over.
	Period time.Duration
	// Burst is the most permits that can be taken at once.
	Burst int
	// MaxWait is how long a call may wait for a permit (0: reject at once).
	MaxWait time.Duration
	// Available is how many permits could be taken when the snapshot was
	// taken, from 0 to Burst. With a Store, it is what the process can
	// grant without a round trip: the leased permits it holds, or while
	// falling back what the fallback would grant (for a limiter without
	// QuotaKey).
	Available int
	// Rejections is how many calls were refused since the limiter was
	// built: each *RateLimitedError returned and each false Allow. A wait
	// ended by the caller's ctx is not a rejection.
	Rejections int64
	// Store reports whether the limiter keeps its state in a Store
	// (Config.Store).
	Store bool
	// Fallback reports whether the limiter's store is failing now, so that
	// calls are decided by Config.Fallback.
	Fallback bool
	// StoreFailures is how many store calls failed (an error, or no answer
	// within StoreTimeout) since the limiter was built, probes included.
	StoreFailures int64
	// Fallbacks is how many times the limiter fell back from its store.
	Fallbacks int64
}

// MarshalJSON writes s as a JSON object with its fields' names, Period and
// MaxWait as duration strings such as "1s".
func (s Snapshot) MarshalJSON() ([]byte, error) {
	type plain Snapshot
	return json.Marshal(struct {
		plain
		Period, MaxWait string
	}{plain(s), s.Period.String(), s.MaxWait.String()})
}

// Handle returns a handle on l, like [NewHandle].
func (l *Limiter) Handle() *Handle { return NewHandle(l) }
