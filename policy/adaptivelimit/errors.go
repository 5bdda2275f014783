package adaptivelimit

import (
	"errors"

	"github.com/resilience4cata/r4c/policy"
)

// ErrLimitExceeded is the sentinel of a call the adaptive limit rejected
// because every slot was taken (or, for a low-priority call, every slot of
// its share). The function was not called.
var ErrLimitExceeded = errors.New("r4c: adaptive limit exceeded")

// LimitExceededError is the rejection a [Limiter] returns. It matches
// [ErrLimitExceeded] (through Unwrap) and [policy.ErrRejected] (through Is)
// with errors.Is, and tells which instance rejected the call.
//
// Each Limiter makes one LimitExceededError when it is built and returns
// that same value for every rejection, so a rejection allocates nothing.
// Treat it as read-only.
type LimitExceededError struct {
	instance string
	msg      string
}

func newLimitExceededError(instance string) *LimitExceededError {
	msg := "r4c: adaptive limit exceeded"
	if instance != "" {
		msg = "r4c: adaptive limit " + instance + " exceeded"
	}
	return &LimitExceededError{instance: instance, msg: msg}
}

// Error returns "r4c: adaptive limit <instance> exceeded" (without the
// instance when it has no id).
func (e *LimitExceededError) Error() string { return e.msg }

// Unwrap returns [ErrLimitExceeded].
func (e *LimitExceededError) Unwrap() error { return ErrLimitExceeded }

// Is reports whether target is [policy.ErrRejected]. It compares
// shallowly; errors.Is reaches ErrLimitExceeded through Unwrap.
func (e *LimitExceededError) Is(target error) bool { return target == policy.ErrRejected }

// InstanceID returns the id of the adaptive limit that rejected the call.
func (e *LimitExceededError) InstanceID() string { return e.instance }
