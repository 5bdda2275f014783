package timeout

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// ErrCallTimeout is matched (with errors.Is) by the error of every call whose
// timeout fired. It is the same value as [policy.ErrCallTimeout], so the
// adaptive limit's default DropOn list counts a timeout inside it as a drop.
var ErrCallTimeout = policy.ErrCallTimeout

// CallTimeoutError is the error a caller gets when a timeout fired before
// the call returned. It matches [ErrCallTimeout] (through Unwrap) and
// [context.DeadlineExceeded] (through Is), and, like the net package's
// errors, has a Timeout method that returns true.
//
// It is not a rejection: the function was called and may still be running
// (see the package doc), so it does not match [policy.ErrRejected].
//
// Each [Timeout] allocates its CallTimeoutError once, in [New], and returns
// that same value for every call that times out: a timeout allocates no
// error. Its methods are safe for concurrent use.
type CallTimeoutError struct {
	instance string
	st       atomic.Pointer[timeoutText] // rewritten when the timeout changes
}

type timeoutText struct {
	d   time.Duration
	msg string
}

func newCallTimeoutError(instance string, d time.Duration) *CallTimeoutError {
	e := &CallTimeoutError{instance: instance}
	e.set(d)
	return e
}

// set rewrites the error for the timeout d.
func (e *CallTimeoutError) set(d time.Duration) {
	msg := "r4c: call timed out after " + d.String()
	if e.instance != "" {
		msg += " (timeout " + e.instance + ")"
	}
	e.st.Store(&timeoutText{d: d, msg: msg})
}

// Error returns "r4c: call timed out after <timeout> (timeout <instance>)",
// with the timeout in force when Error is called.
func (e *CallTimeoutError) Error() string { return e.st.Load().msg }

// Unwrap returns [ErrCallTimeout].
func (e *CallTimeoutError) Unwrap() error { return ErrCallTimeout }

// Is reports whether target is [context.DeadlineExceeded], so that
// errors.Is(err, context.DeadlineExceeded) holds for a timeout, as it does
// for a function that returned its own ctx's error. It compares shallowly;
// errors.Is reaches ErrCallTimeout through Unwrap.
func (e *CallTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// InstanceID returns the id of the timeout instance whose deadline fired.
func (e *CallTimeoutError) InstanceID() string { return e.instance }

// Duration returns the configured timeout that fired.
func (e *CallTimeoutError) Duration() time.Duration { return e.st.Load().d }

// Timeout returns true: the error reports a timeout (the method net.Error
// and context.DeadlineExceeded also have).
func (e *CallTimeoutError) Timeout() bool { return true }
