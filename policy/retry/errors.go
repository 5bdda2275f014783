package retry

import (
	"errors"
	"strconv"
)

// ErrExhausted is matched (with errors.Is) by every [*ExhaustedError]: the
// retry gave up on an error it would have retried.
var ErrExhausted = errors.New("r4c: retries exhausted")

// ErrBudgetExhausted is matched by an [*ExhaustedError] whose retry stopped
// because the retry budget was spent, before MaxAttempts was reached.
var ErrBudgetExhausted = errors.New("r4c: retry budget exhausted")

// ErrRetryableResult is the error a retry records for an attempt whose
// result Config.RetryIfResult asked to retry. When such a result is the
// last one, the caller gets the result together with an [*ExhaustedError]
// whose Last is ErrRetryableResult.
var ErrRetryableResult = errors.New("r4c: result asked for a retry")

// ExhaustedError is the error of a call whose retry gave up: the last
// attempt failed with an error worth retrying, and either MaxAttempts
// attempts were made or the retry budget allowed no more (Budget is then
// true). It is not a rejection: the function was called at least once.
//
// ExhaustedError unwraps to the last attempt's error, so errors.Is(err,
// adaptivelimit.ErrLimitExceeded), errors.Is(err, breaker.ErrOpen) and
// errors.Is(err, policy.ErrRejected) look at the last attempt. Each one is
// allocated when a retry gives up.
type ExhaustedError struct {
	// Attempts is the number of attempts made, the first included.
	Attempts int
	// Last is the last attempt's error (ErrRetryableResult if it returned
	// a result that asked for a retry).
	Last error
	// Instance is the id of the retry instance.
	Instance string
	// Budget reports that the retry budget, not MaxAttempts, stopped the
	// retries.
	Budget bool
}

// Error returns "r4c: retry <instance> gave up after <n> attempts: <last>",
// naming the budget when it stopped the retries.
func (e *ExhaustedError) Error() string {
	msg := "r4c: retry "
	if e.Instance != "" {
		msg += e.Instance + " "
	}
	msg += "gave up after " + strconv.Itoa(e.Attempts) + " attempt"
	if e.Attempts != 1 {
		msg += "s"
	}
	if e.Budget {
		msg += " (retry budget exhausted)"
	}
	if e.Last != nil {
		msg += ": " + e.Last.Error()
	}
	return msg
}

// Unwrap returns the last attempt's error.
func (e *ExhaustedError) Unwrap() error { return e.Last }

// Is reports whether target is ErrExhausted, or ErrBudgetExhausted when the
// budget stopped the retries. It compares shallowly; errors.Is reaches the
// last attempt's error through Unwrap.
func (e *ExhaustedError) Is(target error) bool {
	return target == ErrExhausted || (e.Budget && target == ErrBudgetExhausted)
}

// InstanceID returns the id of the retry instance that gave up.
func (e *ExhaustedError) InstanceID() string { return e.Instance }
