package bulkhead

import "time"

// Handle reads a [Bulkhead]'s settings and figures. It is safe for
// concurrent use; its methods never block and allocate nothing.
type Handle struct{ b *Bulkhead }

// NewHandle returns the handle of b.
func NewHandle(b *Bulkhead) *Handle { return &Handle{b: b} }

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
		MaxConcurrent: b.MaxConcurrent(),
		MaxWait:       b.maxWait,
		InFlight:      b.InFlight(),
		Waiting:       b.Waiting(),
		Rejections:    b.rejections.Load(),
	}
}

// Snapshot is a [Bulkhead]'s settings and figures.
type Snapshot struct {
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
	Rejections uint64
}

// Handle returns a handle on b, like [NewHandle].
func (b *Bulkhead) Handle() *Handle { return NewHandle(b) }
