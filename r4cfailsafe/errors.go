package r4cfailsafe

import (
	"context"
	"errors"

	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/failsafe-go/failsafe-go/adaptivethrottler"
	fsbulkhead "github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/ratelimiter"
	fstimeout "github.com/failsafe-go/failsafe-go/timeout"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// Error is an error of one library as the other sees it: its message is
// the original's, and errors.Is and errors.As match, through Unwrap, both
// the original error and the other library's errors of the same meaning.
//
// A rejection by one of r4c's policies inside a failsafe-go executor is an
// Error that unwraps to r4c's own error (so errors.As finds, say, the
// *adaptivelimit.LimitExceededError, and errors.Is matches
// adaptivelimit.ErrLimitExceeded and policy.ErrRejected) and to
// failsafe-go's sentinel for that kind (adaptivelimiter.ErrExceeded,
// bulkhead.ErrFull, circuitbreaker.ErrOpen or ratelimiter.ErrExceeded).
// The package documentation has the full table, both ways.
//
// Errors for an r4c instance are made once and shared by its rejections, so
// a rejection allocates none; treat them as read-only.
type Error struct {
	msg  string
	errs []error
}

func newError(errs ...error) *Error { return &Error{msg: errs[0].Error(), errs: errs} }

// Error returns the original error's message.
func (e *Error) Error() string { return e.msg }

// Unwrap returns the original error, then the other library's errors it
// stands for.
func (e *Error) Unwrap() []error { return e.errs }

// Kinds of failsafe-go policies, as they appear in a [*policy.RejectedError]
// and in events.CallRejected when a failsafe-go policy rejects a call inside
// an r4c pipeline.
const (
	KindAdaptiveLimiter   = "failsafe-go/adaptivelimiter"
	KindAdaptiveThrottler = "failsafe-go/adaptivethrottler"
	KindBulkhead          = "failsafe-go/bulkhead"
	KindCircuitBreaker    = "failsafe-go/circuitbreaker"
	KindRateLimiter       = "failsafe-go/ratelimiter"
)

// theirRejections are failsafe-go's rejection sentinels (the function was
// not called), with their kind and the r4c sentinel of the same meaning
// beyond policy.ErrRejected, if any: a full bulkhead is a drop to an r4c
// adaptive limit outside.
var theirRejections = [...]struct {
	err  error
	kind string
	also error
}{
	{adaptivelimiter.ErrExceeded, KindAdaptiveLimiter, nil},
	{adaptivethrottler.ErrExceeded, KindAdaptiveThrottler, nil},
	{fsbulkhead.ErrFull, KindBulkhead, policy.ErrBulkheadFull},
	{circuitbreaker.ErrOpen, KindCircuitBreaker, nil},
	{ratelimiter.ErrExceeded, KindRateLimiter, nil},
}

// ourSentinel returns failsafe-go's sentinel for a rejection by one of
// r4c's policies (nil for an error that is not one).
func ourSentinel(err error) error {
	switch {
	case errors.Is(err, adaptivelimit.ErrLimitExceeded):
		return adaptivelimiter.ErrExceeded
	case errors.Is(err, bulkhead.ErrFull):
		return fsbulkhead.ErrFull
	case errors.Is(err, breaker.ErrOpen):
		return circuitbreaker.ErrOpen
	case errors.Is(err, ratelimit.ErrRateLimited):
		return ratelimiter.ErrExceeded
	}
	return nil
}

// timeoutAliases are what a failsafe-go timeout also matches on r4c's side:
// r4c's call timeout (a drop to an adaptive limit outside) and
// context.DeadlineExceeded, as r4c's own timeout error does.
var timeoutAliases = []error{policy.ErrCallTimeout, context.DeadlineExceeded}

// theirTimeout is failsafe-go's timeout sentinel as r4c sees it.
var theirTimeout = newError(append([]error{fstimeout.ErrExceeded}, timeoutAliases...)...)

// asOurs returns err as r4c's classification sees it: failsafe-go's
// timeout also matches r4c's call timeout, and its full bulkhead r4c's
// full bulkhead, so that an adaptive limit outside counts them as drops
// (by its DropOn). Other errors are returned as they are. It allocates only
// for such an error that is not the bare sentinel.
func asOurs(err error) error {
	switch {
	case err == nil:
		return nil
	case err == fstimeout.ErrExceeded:
		return theirTimeout
	case err == fsbulkhead.ErrFull:
		return theirBulkheadFull
	case errors.Is(err, fstimeout.ErrExceeded) && !errors.Is(err, policy.ErrCallTimeout):
		return newError(append([]error{err}, timeoutAliases...)...)
	case errors.Is(err, fsbulkhead.ErrFull) && !errors.Is(err, policy.ErrBulkheadFull):
		return newError(err, policy.ErrBulkheadFull)
	}
	return err
}

var theirBulkheadFull = newError(fsbulkhead.ErrFull, policy.ErrBulkheadFull)
