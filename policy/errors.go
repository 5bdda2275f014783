package policy

import "errors"

// ErrRejected is matched by every rejection: the policy refused the call and
// the function was not called.
var ErrRejected = errors.New("r4c: rejected")

// RejectedError is the common shape of a rejection. Policies usually return
// their own error type, which matches ErrRejected the same way; RejectedError
// serves custom policies and tests.
type RejectedError struct {
	// Kind is the policy kind that rejected the call, such as "bulkhead".
	Kind string
	// Instance is the id of the policy instance.
	Instance string
	// Err is the policy's own sentinel, returned by Unwrap.
	Err error
}

// Error returns "r4c: <kind> <instance> rejected the call: <err>".
func (e *RejectedError) Error() string {
	msg := "r4c: " + e.Kind + " " + e.Instance + " rejected the call"
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the policy's own sentinel.
func (e *RejectedError) Unwrap() error { return e.Err }

// Is reports whether target is ErrRejected. It compares shallowly, as an Is
// method should; errors.Is reaches Err through Unwrap.
func (e *RejectedError) Is(target error) bool { return target == ErrRejected }

// InstanceID returns the id of the instance that rejected the call.
func (e *RejectedError) InstanceID() string { return e.Instance }
