package r4chttp

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// ErrStatus is matched (with errors.Is) by every [*StatusError]: a response
// whose status the configuration counts as a failure.
var ErrStatus = errors.New("r4c: http: failure status")

// ErrBodyNotReplayable is the error of a request whose body cannot be sent
// again: a retry (or a hedge) would need it a second time and the request
// has no GetBody. The request was sent at most once. It matches
// [policy.ErrRejected]: the attempt that returns it sent nothing.
var ErrBodyNotReplayable = errors.New("r4c: http: request body cannot be replayed (set Request.GetBody)")

// ErrNotIdempotent is the error of a hedged attempt the [Transport] refused
// to send because the request's method is not idempotent and another
// attempt of it is in flight. It matches [policy.ErrRejected], so a hedge
// starts no more attempts; the attempt in flight goes on.
var ErrNotIdempotent = errors.New("r4c: http: a request that is not idempotent is not hedged")

// refusal is the error of an attempt the Transport did not send.
type refusal struct{ err error }

func (e *refusal) Error() string        { return e.err.Error() }
func (e *refusal) Unwrap() error        { return e.err }
func (e *refusal) Is(target error) bool { return target == policy.ErrRejected }

var (
	errNotReplayable = &refusal{ErrBodyNotReplayable}
	errNotIdempotent = &refusal{ErrNotIdempotent}
)

// StatusError is the error a response becomes when its status is a failure:
// on the client side a status the [ClientConfig] counts as a failure (by
// default 5xx and 429), on the server side a status the [ServerConfig]
// counts as a drop (by default 5xx). It matches [ErrStatus].
//
// On the client side it carries the response, whose body the [Transport]
// has read ahead (up to [ClientConfig.DrainLimit]) so that the connection
// can serve another request; when the pipeline gives up on it (the
// retries are exhausted, or the error is not retried), RoundTrip returns
// that response with a nil error, as an http.RoundTripper must, and the
// caller reads the body as usual.
type StatusError struct {
	// Status is the response's status code.
	Status int
	// Wait is what the response's Retry-After header asked for, zero when
	// it had none (or one that did not parse).
	Wait time.Duration
	// Response is the client's response (nil on the server side).
	Response *http.Response

	drop bool
}

// Error returns "r4c: http: status 503 (retry after 2s)".
func (e *StatusError) Error() string {
	msg := "r4c: http: status " + strconv.Itoa(e.Status)
	if e.Wait > 0 {
		msg += " (retry after " + e.Wait.String() + ")"
	}
	return msg
}

// Unwrap returns [ErrStatus].
func (e *StatusError) Unwrap() error { return ErrStatus }

// RetryAfter returns Wait: the retry's [retry.RetryAfterWait] hook waits
// at least this long before the next attempt.
func (e *StatusError) RetryAfter() time.Duration { return e.Wait }

// Drop reports whether the status is an overload signal for an adaptive
// limit (see [IsDrop]).
func (e *StatusError) Drop() bool { return e.drop }

// IsDrop reports whether err is, or wraps, a [*StatusError] whose status
// the configuration counts as a drop (an overload signal). Set it as the
// adaptive limit's DropIf in a pipeline built by hand (the recommended
// constructors do): adaptivelimit.Config{DropIf: r4chttp.IsDrop}. A
// timeout and a full bulkhead stay drops through the default DropOn.
func IsDrop(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.drop
}

// NotRetryable reports whether err is an attempt the [Transport] did not
// send ([ErrBodyNotReplayable], [ErrNotIdempotent]), or the failure of a
// request that must not be sent again (its body cannot be replayed, or its
// method is not idempotent and the failure may have come after the server
// got it): a retry should give up on it at once. Set it as the retry's
// AbortIf in a pipeline built by hand (the recommended client pipeline
// does). Without it the Transport still never sends such a request twice:
// the retry's later attempts fail with ErrBodyNotReplayable unsent.
func NotRetryable(err error) bool {
	var r *refusal
	if errors.As(err, &r) {
		return true
	}
	var o *onceError
	return errors.As(err, &o)
}

// isRefusal reports whether err is an attempt the Transport did not send.
func isRefusal(err error) bool {
	_, ok := errors.AsType[*refusal](err)
	return ok
}

// onceError marks an attempt's error when the request cannot be sent again
// (its body cannot be replayed, or it is not idempotent and may have
// reached the server).
type onceError struct{ err error }

func (e *onceError) Error() string { return e.err.Error() }
func (e *onceError) Unwrap() error { return e.err }
