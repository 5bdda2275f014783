package ratelimit

import (
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// ErrRateLimited is matched (with errors.Is) by the error of every call a
// rate limiter refused.
var ErrRateLimited = errors.New("r4c: rate limited")

// RateLimitedError is the error of a call refused because no permit was free
// (at once, or within MaxWait, or before the caller's deadline). It matches
// [ErrRateLimited] (through Unwrap) and [policy.ErrRejected] (through Is):
// the function was not called.
//
// Each [Limiter] without a Store allocates its RateLimitedError once, in
// [New], and returns that same value for every refusal, so a refusal
// allocates nothing. The
// error therefore carries no per-call figure: [RateLimitedError.RetryAfter]
// asks the limiter when it is called. Its methods are safe for concurrent
// use.
type RateLimitedError struct {
	l        *Limiter
	instance string
	msg      atomic.Pointer[string] // rewritten when the rate changes

	// With a Store, each refusal has its own error, which remembers when
	// (a clock reading) and how long the store said a permit would take.
	fixed bool
	at    int64
	after time.Duration
}

// setMessage writes the message for limit per period.
func (e *RateLimitedError) setMessage(limit int, period time.Duration) {
	msg := "r4c: rate limited: " + strconv.Itoa(limit) + " per " + period.String()
	if e.instance != "" {
		msg += " (ratelimit " + e.instance + ")"
	}
	e.msg.Store(&msg)
}

// Error returns "r4c: rate limited: <limit> per <period> (ratelimit <instance>)",
// with the rate in force when Error is called.
func (e *RateLimitedError) Error() string { return *e.msg.Load() }

// Unwrap returns [ErrRateLimited].
func (e *RateLimitedError) Unwrap() error { return ErrRateLimited }

// Is reports whether target is [policy.ErrRejected]. It compares shallowly;
// errors.Is reaches ErrRateLimited through Unwrap.
func (e *RateLimitedError) Is(target error) bool { return target == policy.ErrRejected }

// InstanceID returns the id of the rate limiter that refused the call.
func (e *RateLimitedError) InstanceID() string { return e.instance }

// RetryAfter returns how long from now, the moment RetryAfter is called,
// until the limiter will have a free permit if nobody takes one first: the
// limiter's [Limiter.RetryAfter]. Called right after the refusal it is the
// wait that would have been needed (up to a refill that happened in
// between); called later it reflects the permits taken and freed since.
// It reads the limiter's clock once.
//
// A limiter with a Store (Config.Store) returns a new error for each
// refusal, whose RetryAfter is what the store said for that call's quota,
// less the time since the refusal.
func (e *RateLimitedError) RetryAfter() time.Duration {
	if e.fixed {
		return max(e.after-time.Duration(e.l.clock.Nanotime()-e.at), 0)
	}
	return e.l.RetryAfter()
}
