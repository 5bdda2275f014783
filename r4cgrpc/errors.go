package r4cgrpc

import (
	"errors"
	"strconv"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// PushbackKey is the trailer a server sets on a rejection to tell the
// client when to try again, in milliseconds (gRPC's retry design, A6); a
// negative value asks it not to retry.
const PushbackKey = "grpc-retry-pushback-ms"

// CodeError is the error the pipeline sees for a call that ended with a
// status the configuration counts as a failure. It unwraps to the call's
// own status error (status.FromError and status.Code see through it), and
// the interceptor returns that status error, not the CodeError, to the
// caller.
type CodeError struct {
	// Code is the call's status code.
	Code codes.Code
	// Wait is what the server's grpc-retry-pushback-ms trailer asked for
	// (client side), zero without one.
	Wait time.Duration

	err       error
	drop      bool
	noRetry   bool
	pushbackN bool // the server asked not to retry
}

// Error returns the status error's message.
func (e *CodeError) Error() string { return e.err.Error() }

// Unwrap returns the call's status error.
func (e *CodeError) Unwrap() error { return e.err }

// GRPCStatus returns the call's status, for status.FromError.
func (e *CodeError) GRPCStatus() *status.Status {
	s, _ := status.FromError(e.err)
	return s
}

// RetryAfter returns Wait: retry.RetryAfterWait waits at least this long.
func (e *CodeError) RetryAfter() time.Duration { return e.Wait }

// Drop reports whether the code is an overload signal (see [IsDrop]).
func (e *CodeError) Drop() bool { return e.drop }

// IsDrop reports whether err is, or wraps, a [*CodeError] whose code the
// configuration counts as a drop. Set it as the adaptive limit's DropIf in
// a pipeline built by hand; the recommended constructors do.
func IsDrop(err error) bool {
	ce, ok := errors.AsType[*CodeError](err)
	return ok && ce.drop
}

// NotRetryable reports whether err is a call that gRPC's semantics forbid
// to send again: a status that does not say the server left the call
// unprocessed, on a method that is not idempotent, or a pushback that
// asks not to retry. Set it as the retry's AbortIf in a pipeline built by
// hand; the recommended client pipeline does.
func NotRetryable(err error) bool {
	ce, ok := errors.AsType[*CodeError](err)
	return ok && ce.noRetry
}

// ErrStreamRetry is matched by the error of a stream interceptor asked
// for with a pipeline that retries or hedges.
var ErrStreamRetry = errors.New("r4c: grpc: a stream cannot be replayed: its pipeline must not retry or hedge")

// parsePushback reads a grpc-retry-pushback-ms value: the wait, and
// whether the server asked not to retry (a negative or unreadable value).
func parsePushback(v string) (time.Duration, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, true
	}
	const maxMs = int64(24 * time.Hour / time.Millisecond)
	return time.Duration(min(n, maxMs)) * time.Millisecond, false
}
