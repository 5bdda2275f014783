package timeout

import "time"

// Handle reads a [Timeout]'s settings and figures. It is safe for
// concurrent use; its methods never block and allocate nothing.
type Handle struct{ t *Timeout }

// NewHandle returns the handle of t.
func NewHandle(t *Timeout) *Handle { return &Handle{t: t} }

// Timeout returns the configured timeout.
func (h *Handle) Timeout() time.Duration { return h.t.d }

// Cooperative reports whether calls run on the caller's goroutine.
func (h *Handle) Cooperative() bool { return h.t.cooperative }

// Timeouts returns how many calls timed out so far.
func (h *Handle) Timeouts() uint64 { return h.t.timeouts.Load() }

// Snapshot returns the timeout's settings and figures at one moment.
func (h *Handle) Snapshot() Snapshot {
	return Snapshot{Timeout: h.t.d, Cooperative: h.t.cooperative, Timeouts: h.t.timeouts.Load()}
}

// Snapshot is a [Timeout]'s settings and figures at one moment.
type Snapshot struct {
	// Timeout is the configured timeout.
	Timeout time.Duration
	// Cooperative reports whether calls run on the caller's goroutine.
	Cooperative bool
	// Timeouts is how many calls timed out since the timeout was built
	// (the caller got a *CallTimeoutError).
	Timeouts uint64
}

// Handle returns a handle on t, like [NewHandle].
func (t *Timeout) Handle() *Handle { return NewHandle(t) }
