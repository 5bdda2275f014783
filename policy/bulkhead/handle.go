package bulkhead

import (
	"encoding/json"
	"time"
)

// Handle reads a [Bulkhead]'s settings and figures. It is safe for
// concurrent use; its methods never block and allocate nothing.
type Handle struct{ b *Bulkhead }

// NewHandle returns the handle of b.
func NewHandle(b *Bulkhead) *Handle { return &Handle{b: b} }

// Bulkhead returns the bulkhead h reads, so that code holding only the
// handle (the registry's reg.Bulkhead) can take slots from the same
// instance, with [Bulkhead.Acquire] and [Bulkhead.Release] or through
// [Stage].
func (h *Handle) Bulkhead() *Bulkhead { return h.b }

// Config returns the bulkhead's configuration, defaults filled in: as
// built, with the changes of [Handle.SetMaxConcurrent] and of
// Registry.Reload.
func (h *Handle) Config() Config {
	h.b.cmu.Lock()
	defer h.b.cmu.Unlock()
	return h.b.cfg
}

// MaxConcurrent returns the number of slots.
func (h *Handle) MaxConcurrent() int { return h.b.MaxConcurrent() }

// InFlight returns how many slots are held now.
func (h *Handle) InFlight() int { return h.b.InFlight() }

// Waiting returns how many calls are waiting for a slot now.
func (h *Handle) Waiting() int { return h.b.Waiting() }

// Snapshot returns the bulkhead's settings and figures. Each figure is read
// atomically on its own; together they are not one consistent instant.
func (h *Handle) Snapshot() Snapshot {
	b := h.b
	return Snapshot{
		Disabled:      b.disabled,
		MaxConcurrent: b.MaxConcurrent(),
		MaxWait:       b.maxWait,
		InFlight:      b.InFlight(),
		Waiting:       b.Waiting(),
		Rejections:    int64(b.rejections.Load()),
	}
}

// Snapshot is a [Bulkhead]'s settings and figures. It marshals to JSON with
// MaxWait as a Go duration string ("250ms").
type Snapshot struct {
	// Disabled reports whether the bulkhead lets every call pass without
	// taking a slot.
	Disabled bool
	// MaxConcurrent is the number of slots.
	MaxConcurrent int
	// MaxWait is how long a call may wait for a slot (0: fail fast).
	MaxWait time.Duration
	// InFlight is how many slots were held.
	InFlight int
	// Waiting is how many calls were waiting for a slot.
	Waiting int
	// Rejections is how many calls were refused since the bulkhead was
	// built: each *BulkheadFullError returned and each false TryAcquire.
	// A wait ended by the caller's ctx is not a rejection.
	Rejections int64
}

// MarshalJSON writes s as a JSON object with its fields' names, MaxWait as
// a duration string such as "250ms".
func (s Snapshot) MarshalJSON() ([]byte, error) {
	type plain Snapshot
	return json.Marshal(struct {
		plain
		MaxWait string
	}{plain(s), s.MaxWait.String()})
}

// Handle returns a handle on b, like [NewHandle].
func (b *Bulkhead) Handle() *Handle { return NewHandle(b) }
