package timeout

import (
	"encoding/json"
	"time"
)

// Handle reads a [Timeout]'s settings and figures. It is safe for
// concurrent use; its methods never block and allocate nothing.
type Handle struct{ t *Timeout }

// NewHandle returns the handle of t.
func NewHandle(t *Timeout) *Handle { return &Handle{t: t} }

// Config returns the timeout's configuration, defaults filled in: as built,
// with the changes of [Handle.SetTimeout] and of Registry.Reload.
func (h *Handle) Config() Config {
	h.t.mu.Lock()
	defer h.t.mu.Unlock()
	return h.t.cfg
}

// Timeout returns the configured timeout.
func (h *Handle) Timeout() time.Duration { return h.t.Duration() }

// Cooperative reports whether calls run on the caller's goroutine.
func (h *Handle) Cooperative() bool { return h.t.cooperative }

// Timeouts returns how many calls timed out so far.
func (h *Handle) Timeouts() int64 { return int64(h.t.timeouts.Load()) }

// Snapshot returns the timeout's settings and figures at one moment.
func (h *Handle) Snapshot() Snapshot {
	return Snapshot{Disabled: h.t.disabled, Timeout: h.t.Duration(), Cooperative: h.t.cooperative, Timeouts: h.Timeouts()}
}

// Snapshot is a [Timeout]'s settings and figures at one moment. It
// marshals to JSON with Timeout as a Go duration string ("1.5s").
type Snapshot struct {
	// Disabled reports whether the timeout lets every call pass untouched.
	Disabled bool
	// Timeout is the configured timeout.
	Timeout time.Duration
	// Cooperative reports whether calls run on the caller's goroutine.
	Cooperative bool
	// Timeouts is how many calls timed out since the timeout was built
	// (the caller got a *CallTimeoutError).
	Timeouts int64
}

// MarshalJSON writes s as a JSON object with its fields' names, Timeout as
// a duration string such as "1.5s".
func (s Snapshot) MarshalJSON() ([]byte, error) {
	type plain Snapshot
	return json.Marshal(struct {
		plain
		Timeout string
	}{plain(s), s.Timeout.String()})
}

// Handle returns a handle on t, like [NewHandle].
func (t *Timeout) Handle() *Handle { return NewHandle(t) }
