package fallback

// Handle is a read-only view of a [Fallback], for dashboards and tests. It
// is safe for concurrent use; its methods never block and allocate nothing.
type Handle struct{ f *Fallback }

// Snapshot is a copy of a fallback's figures at one moment. The counters
// only grow; they are read one by one, so under load two of them may be a
// few calls apart.
type Snapshot struct {
	// Disabled reports whether the fallback lets every outcome pass
	// unchanged.
	Disabled bool
	// Calls counts the calls that went through the fallback (none while
	// disabled).
	Calls int64
	// Handled counts the calls whose error the fallback handled, by
	// returning Value or calling Func.
	Handled int64
	// FuncFailures counts the handled calls whose Func returned an error or
	// a result that is not of the pipeline's type: those calls failed all
	// the same.
	FuncFailures int64
}

// Config returns the configuration the fallback was built with.
func (h *Handle) Config() Config { return h.f.cfg }

// Snapshot returns the fallback's current figures.
func (h *Handle) Snapshot() Snapshot {
	f := h.f
	return Snapshot{
		Disabled:     f.disabled,
		Calls:        int64(f.calls.Load()),
		Handled:      int64(f.handled.Load()),
		FuncFailures: int64(f.failed.Load()),
	}
}
