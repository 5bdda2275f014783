package adaptivelimit

import (
	"encoding/json"
	"time"
)

// Handle reads the state of a [Limiter] for monitoring and tests. It is
// safe for concurrent use; get it with [Limiter.Handle].
type Handle struct{ l *Limiter }

// Handle returns the limiter's handle. Every call returns the same one.
func (l *Limiter) Handle() *Handle { return l.handle }

// Limiter returns the limiter h reads, so that code holding only the
// handle (the registry's reg.AdaptiveLimit) can take slots from the same
// instance: with [Limiter.Acquire] and [Limiter.Release], or through
// [Stage] in another library's executor. Its calls count in h's figures
// and publish on the registry's bus.
func (h *Handle) Limiter() *Limiter { return h.l }

// Limit returns the current limit: how many calls may hold a slot at once.
// It costs one atomic load. For a disabled limit it is InitialLimit, which
// nothing enforces.
func (h *Handle) Limit() int { return int(uint32(h.l.hot.lim.Load())) }

// InFlight returns how many calls hold a slot now (always 0 when disabled).
// It may be above Limit right after the limit went down: nothing is
// interrupted, new calls are rejected until enough have ended.
func (h *Handle) InFlight() int { return int(uint32(h.l.hot.word.Load())) }

// Config returns the limiter's configuration, with the defaults filled in:
// as built, with the changes of its setters and of Registry.Reload.
func (h *Handle) Config() Config {
	h.l.mu.Lock()
	c := h.l.cfg
	h.l.mu.Unlock()
	c.DropOn = append([]error(nil), c.DropOn...)
	return c
}

// Snapshot is a consistent-enough picture of a [Limiter]: the window
// figures are read together, the counters one by one. It marshals to JSON
// with Algorithm as its name ("gradient2") and the latencies as Go duration
// strings ("250ms").
type Snapshot struct {
	// Limit is the current limit (the integer part of the estimate).
	Limit int
	// EstimatedLimit is the algorithm's estimate: fractional for Gradient2,
	// Vegas and Little, equal to Limit for AIMD.
	EstimatedLimit float64
	// InFlight is the number of calls holding a slot.
	InFlight int
	// MinLimit and MaxLimit are the bounds of the limit.
	MinLimit, MaxLimit int
	// Algorithm is the algorithm that recomputes the limit.
	Algorithm Algorithm
	// Windows is the number of windows completed (each recomputed the limit).
	Windows int64
	// WindowLatency is the average latency of the last completed window.
	WindowLatency time.Duration
	// LongLatency is Gradient2's long-term average latency after the last
	// window (zero for AIMD, Vegas and Little, and before the first window).
	LongLatency time.Duration
	// NoLoadLatency is Vegas's latency without queueing, or Little's (the
	// latency at or below the knee it last measured, averaged over up to
	// 400 samples); zero for the others, and before it was measured.
	NoLoadLatency time.Duration
	// MaxInFlight is the most calls in flight during the last completed
	// window, counting those already in flight when it began.
	MaxInFlight int
	// WindowSamples is the number of samples of the last completed window.
	WindowSamples int
	// WindowDropped reports whether the last completed window had a drop.
	WindowDropped bool
	// Overloaded reports whether the last completed window's latency passed
	// LatencyCeiling.
	Overloaded bool
	// Drops is the number of drops recorded since the limiter was built.
	Drops int64
	// Rejections is the number of calls rejected since the limiter was
	// built (including those that waited MaxWait in vain).
	Rejections int64
	// Ignored is the number of calls that held a slot and gave it back
	// without a sample (an error that is not a drop, the caller's
	// cancellation, a panic) since the limiter was built.
	Ignored int64
	// Waiting is the number of calls waiting for a slot (MaxWait).
	Waiting int
	// Disabled reports whether the limit is disabled.
	Disabled bool
}

// MarshalJSON writes s as a JSON object with its fields' names, the
// latencies as duration strings such as "250ms" (Algorithm writes its name
// through its MarshalText).
func (s Snapshot) MarshalJSON() ([]byte, error) {
	type plain Snapshot
	return json.Marshal(struct {
		plain
		WindowLatency, LongLatency, NoLoadLatency string
	}{plain(s), s.WindowLatency.String(), s.LongLatency.String(), s.NoLoadLatency.String()})
}

// Snapshot returns the limiter's figures. It briefly takes the lock the
// window's recompute uses.
func (h *Handle) Snapshot() Snapshot {
	l := h.l
	var drops int64
	for i := range l.stripes {
		drops += l.stripes[i].drops.Load()
	}
	l.mu.Lock()
	w := &l.win
	s := Snapshot{
		Limit:          w.limit,
		EstimatedLimit: float64(w.limit),
		MinLimit:       l.cfg.MinLimit,
		MaxLimit:       l.cfg.MaxLimit,
		Algorithm:      l.cfg.Algorithm,
		Windows:        w.windows,
		WindowLatency:  w.lastRTT,
		LongLatency:    w.alg.longLatency(),
		NoLoadLatency:  w.alg.noLoadLatency(l.cfg.Algorithm),
		MaxInFlight:    w.lastMaxIF,
		WindowSamples:  w.lastSamples,
		WindowDropped:  w.lastDropped,
		Overloaded:     w.lastOverload,
		Disabled:       l.disabled,
	}
	if l.cfg.Algorithm != AIMD {
		s.EstimatedLimit = w.alg.estimate
	}
	l.mu.Unlock()
	s.InFlight = h.InFlight()
	s.Drops = drops
	s.Rejections = l.rejections.Load()
	s.Ignored = l.ignored.Load()
	s.Waiting = l.queued()
	return s
}
