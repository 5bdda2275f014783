package breaker

import (
	"errors"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

// ErrOpen is matched (with errors.Is) by every call a circuit breaker
// refuses: while it is open or forced open, and while it is half-open with
// every trial call taken.
var ErrOpen = errors.New("r4c: circuit breaker open")

// OpenError is the error of a call the breaker refused; the function was not
// called. It matches [ErrOpen] and policy.ErrRejected. Each breaker
// allocates its OpenErrors once, when it is built, so a refusal allocates
// nothing; compare them with errors.Is or errors.As, never by identity.
type OpenError struct {
	instance string
	state    State
	msg      string
	event    events.Event // the CallRejected event of this refusal, boxed once
}

func newOpenError(instance string, state State) *OpenError {
	msg := "r4c: circuit breaker "
	if instance != "" {
		msg += instance + " "
	}
	switch state {
	case StateForcedOpen:
		msg += "is forced open"
	case StateHalfOpen:
		msg += "is half-open and every trial call is taken"
	default:
		msg += "is open"
	}
	e := &OpenError{instance: instance, state: state, msg: msg}
	e.event = events.CallRejected{Policy: "breaker", Instance: instance, Err: e}
	return e
}

// Error returns "r4c: circuit breaker <instance> is open" (or "is forced
// open", or "is half-open and every trial call is taken").
func (e *OpenError) Error() string { return e.msg }

// Unwrap returns ErrOpen.
func (e *OpenError) Unwrap() error { return ErrOpen }

// Is reports whether target is policy.ErrRejected. It compares shallowly;
// errors.Is reaches ErrOpen through Unwrap.
func (e *OpenError) Is(target error) bool { return target == policy.ErrRejected }

// InstanceID returns the id of the breaker that refused the call.
func (e *OpenError) InstanceID() string { return e.instance }

// State returns the state that refused the call: StateOpen, StateForcedOpen
// or StateHalfOpen.
func (e *OpenError) State() State { return e.state }
