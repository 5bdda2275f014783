package breaker

// Handle gives access to a [Breaker]'s state and figures, and moves it by
// hand. Make it with [Breaker.Handle]; it is safe for concurrent use.
type Handle struct{ b *Breaker }

// Handle returns the handle of b.
func (b *Breaker) Handle() *Handle { return &Handle{b} }

// Breaker returns the breaker h reads, so that code holding only the
// handle (the registry's reg.Breaker) can make calls through the same
// instance, with [Breaker.Allow] and [Breaker.Record] or through [Stage].
func (h *Handle) Breaker() *Breaker { return h.b }

// Config returns the configuration the breaker was built with, defaults
// filled in.
func (h *Handle) Config() Config {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	return h.b.cfg
}

// State returns the breaker's current state (see [Breaker.State]).
func (h *Handle) State() State { return h.b.State() }

// TransitionToClosed closes the breaker with an empty window.
func (h *Handle) TransitionToClosed() { h.b.TransitionToClosed() }

// TransitionToOpen opens the breaker, as if a threshold had been reached now.
func (h *Handle) TransitionToOpen() { h.b.TransitionToOpen() }

// TransitionToHalfOpen moves the breaker to half-open with every trial
// permit free.
func (h *Handle) TransitionToHalfOpen() { h.b.TransitionToHalfOpen() }

// TransitionToDisabled disables the breaker until another transition.
func (h *Handle) TransitionToDisabled() { h.b.TransitionToDisabled() }

// TransitionToForcedOpen forces the breaker open until another transition.
func (h *Handle) TransitionToForcedOpen() { h.b.TransitionToForcedOpen() }

// Reset closes the breaker with an empty window and zeroes its totals.
func (h *Handle) Reset() { h.b.Reset() }

// Snapshot is a breaker's figures at one moment.
type Snapshot struct {
	// State is the current state.
	State State
	// Disabled reports whether the breaker is in [StateDisabled]: built with
	// Config.Disabled, or moved there by hand. It admits every call and
	// records nothing.
	Disabled bool
	// FailureRate is the fraction of failed calls, in [0, 1], among the
	// calls buffered in the current window (closed) or trial calls that
	// ended (half-open), the unit of FailureRateThreshold; -1 while they
	// are fewer than the minimum the breaker judges on (MinimumCalls, or
	// HalfOpenCalls when half-open), and in the other states.
	FailureRate float64
	// SlowCallRate is the fraction of slow calls, like FailureRate.
	SlowCallRate float64
	// BufferedCalls is the number of calls in the current window (closed),
	// or of trial calls that ended (half-open); 0 in the other states.
	BufferedCalls int
	// Failures is the number of failed calls among BufferedCalls.
	Failures int
	// SlowCalls is the number of slow calls among BufferedCalls (failed or not).
	SlowCalls int
	// TrialCalls is the number of trial permits taken while half-open
	// (trial calls running or ended); 0 in the other states.
	TrialCalls int
	// Calls is the number of calls recorded (successes and failures, not
	// ignored ones) since the breaker was built or Reset.
	Calls int64
	// NotPermitted is the number of calls refused since the breaker was
	// built or Reset.
	NotPermitted int64
	// FailedCalls is the number of calls recorded as failures since the
	// breaker was built (Reset does not clear it).
	FailedCalls int64
	// IgnoredCalls is the number of calls the breaker ignored (IgnoreOn,
	// IgnoreIf, the caller's cancellation) since it was built.
	IgnoredCalls int64
}

// Snapshot returns the breaker's figures. With a time-based window it reads
// the clock (to let old buckets go) and takes the window's mutex. It
// allocates nothing.
func (h *Handle) Snapshot() Snapshot {
	b := h.b
	e := b.cur.Load()
	s := Snapshot{State: e.state, Disabled: e.state == StateDisabled, FailureRate: -1, SlowCallRate: -1, NotPermitted: b.notPermitted.Load(),
		FailedCalls: b.failed.Load(), IgnoredCalls: b.ignoredCalls.Load()}
	var f figures
	min := b.th.Load().minCalls
	switch {
	case e.count != nil:
		f = e.count.figures()
	case e.timed != nil:
		f = e.timed.figures(b.clock.Nanotime())
	case e.state == StateHalfOpen:
		f = unpack(e.ho.Load(), 0)
		min = e.halfCalls
		s.TrialCalls = int(e.trials.Load())
	}
	s.BufferedCalls, s.Failures, s.SlowCalls = int(f.calls), int(f.failures), int(f.slow)
	if f.calls > 0 && f.calls >= min {
		s.FailureRate = float64(f.failures) / float64(f.calls)
		s.SlowCallRate = float64(f.slow) / float64(f.calls)
	}
	s.Calls = b.retired.Load() + e.recorded()
	return s
}
