package bulkhead

import (
	"strconv"
	"sync/atomic"

	"github.com/resilience4cata/r4c/policy"
)

// ErrFull is matched (with errors.Is) by the error of every call a full
// bulkhead rejected. It is the same value as [policy.ErrBulkheadFull], so
// the adaptive limit's default DropOn list counts a full bulkhead inside it
// as a drop.
var ErrFull = policy.ErrBulkheadFull

// BulkheadFullError is the error of a call rejected because every slot was
// taken (at once, or still after MaxWait). It matches [ErrFull] (through
// Unwrap) and [policy.ErrRejected] (through Is): the function was not
// called.
//
// Each [Bulkhead] allocates its BulkheadFullError once, in [New], and
// returns that same value for every rejection: a rejection allocates
// nothing. Its methods are safe for concurrent use.
type BulkheadFullError struct {
	instance string
	msg      atomic.Pointer[string] // rewritten when MaxConcurrent changes
}

func newFullError(instance string, max int) *BulkheadFullError {
	msg := "r4c: bulkhead full: " + strconv.Itoa(max) + " calls in flight"
	if instance != "" {
		msg += " (bulkhead " + instance + ")"
	}
	e := &BulkheadFullError{instance: instance}
	e.msg.Store(&msg)
	return e
}

// setMax rewrites the message for a new MaxConcurrent.
func (e *BulkheadFullError) setMax(max int) {
	n := newFullError(e.instance, max)
	e.msg.Store(n.msg.Load())
}

// Error returns "r4c: bulkhead full: <n> calls in flight (bulkhead <instance>)".
func (e *BulkheadFullError) Error() string { return *e.msg.Load() }

// Unwrap returns [ErrFull].
func (e *BulkheadFullError) Unwrap() error { return ErrFull }

// Is reports whether target is [policy.ErrRejected]. It compares shallowly;
// errors.Is reaches ErrFull through Unwrap.
func (e *BulkheadFullError) Is(target error) bool { return target == policy.ErrRejected }

// InstanceID returns the id of the bulkhead that rejected the call.
func (e *BulkheadFullError) InstanceID() string { return e.instance }
