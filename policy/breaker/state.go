package breaker

// State is the state of a circuit breaker.
type State uint8

const (
	// StateClosed lets every call through and records its outcome in the
	// sliding window; it opens when a rate reaches its threshold.
	StateClosed State = iota
	// StateOpen refuses every call until OpenFor has passed, then lets
	// trial calls through (half-open).
	StateOpen
	// StateHalfOpen lets HalfOpenCalls trial calls through and refuses the
	// others; the trials' rates decide between closed and open.
	StateHalfOpen
	// StateDisabled lets every call through and records nothing. Only a
	// manual transition leaves it.
	StateDisabled
	// StateForcedOpen refuses every call. Only a manual transition leaves it.
	StateForcedOpen
)

// String returns "closed", "open", "half-open", "disabled" or "forced-open".
func (s State) String() string {
	switch s {
	case StateClosed:
		return "closed"
	case StateOpen:
		return "open"
	case StateHalfOpen:
		return "half-open"
	case StateDisabled:
		return "disabled"
	case StateForcedOpen:
		return "forced-open"
	}
	return "unknown"
}

// MarshalText returns the name String returns.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
