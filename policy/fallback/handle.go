package fallback

// Handle is a read-only view of a [Fallback], for dashboards and tests. It
// is safe for concurrent use; its methods never block and allocate nothing.
type Handle struct{ f *Fallback }

// Snapshot is a copy of a fallback's figures at one moment. The counters
// only grow; they are read one by one, so under load two of them may be a
// few calls apart.
type Snapshot struct {
	// Enabled is false when the fallback is disabled and passes outcomes
	// through.
	Enabled bool
	// Calls counts the calls that went through the fallback (none while
	// disabled).
	Calls uint64
	// Handled counts the calls whose error the fallback handled, by
	// returning Value or calling Func.
	Handled uint64
	// FuncFailures counts the handled calls whose Func returned an error or
	// a result that is not of the pipeline's type: those calls failed all
	// the same.
	FuncFailures uint64
}

// Snapshot returns the fallback's current figures.
func (h *Handle) Snapshot() Snapshot {
	f := h.f
	return Snapshot{
		Enabled:      !f.disabled,
		Calls:        f.calls.Load(),
		Handled:      f.handled.Load(),
		FuncFailures: f.failed.Load(),
	}
}

// Enabled reports whether the fallback handles errors (false when
// disabled).
func (h *Handle) Enabled() bool { return !h.f.disabled }
