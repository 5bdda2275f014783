package ratelimit

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Store keeps the state of rate limits outside the process, so that every
// replica of a service that names the same key draws from one quota. The
// module r4credis implements it on Redis; a [Config] without a Store keeps
// its state in the process (the default, with no round trip and no
// allocation).
//
// A Store runs the same algorithm as the in-process limiter (GCRA: one
// theoretical arrival time per key, permits spaced Interval apart, Burst
// of them at once after a quiet spell), atomically per key and timed by
// its own clock, so that the replicas' clocks may disagree.
//
// The limiter calls a Store with a ctx that carries the store timeout
// (Config.StoreTimeout) as its deadline. A Store must return by that
// deadline, with an error, whatever the state of its server: the limiter
// counts on it to never hold a call longer. Any error is a store failure,
// and makes the limiter fall back (Config.Fallback). A Store is safe for
// concurrent use.
type Store interface {
	// Reserve takes up to r.Permits permits of key's quota and reports what
	// it took. When at least one permit is free now, it takes as many of the
	// free ones as asked (at most r.Permits) and returns them with Wait 0.
	// When none is free but the next one comes within r.MaxWait, it
	// reserves that one and returns it with the Wait until it comes. Else it
	// takes nothing and returns Permits 0 with RetryAfter, the time until a
	// permit is free if nobody takes one first.
	Reserve(ctx context.Context, key string, r StoreRequest) (Reservation, error)
	// Release gives back n permits of key's quota that a reservation took
	// and nobody used (a wait cancelled by its caller). A quota that has
	// refilled in the meantime is left as it is: it never goes above Burst.
	Release(ctx context.Context, key string, r StoreRequest, n int) error
}

// StoreRequest is the rule a [Store] applies to one key: the quota's
// shape, fixed by the limiter's [Config], and what the call asks for.
type StoreRequest struct {
	// Interval is the time between two permits: Period/Limit, at least 1ns.
	Interval time.Duration
	// Burst is the most permits that may be taken at once; at least 1.
	Burst int
	// Permits is how many permits the call would like at once when they
	// are free now: 1, or the lease size (Config.Lease). At least 1.
	Permits int
	// MaxWait is how far ahead of now a single permit may be reserved when
	// none is free now; 0 takes only a free one.
	MaxWait time.Duration
}

// Reservation is what [Store.Reserve] took.
type Reservation struct {
	// Permits is how many permits were taken: 0 when the call was refused,
	// from 1 to the request's Permits otherwise.
	Permits int
	// Wait is how long after the store's now the first permit comes: 0
	// when it is free now.
	Wait time.Duration
	// RetryAfter is, when Permits is 0, how long after the store's now a
	// permit will be free if nobody takes one first.
	RetryAfter time.Duration
}

// Fallback is what a limiter with a [Store] does while its store fails (an
// error, or no answer within Config.StoreTimeout).
type Fallback uint8

const (
	// FallbackLocal decides each call with a limiter in the process, at
	// FallbackShare of the limit and of the burst. It is the default.
	FallbackLocal Fallback = iota
	// FallbackOpen lets every call through while the store fails.
	FallbackOpen
	// FallbackClosed refuses every call while the store fails, with the
	// limiter's [*RateLimitedError].
	FallbackClosed
)

var fallbackNames = [...]string{FallbackLocal: "local", FallbackOpen: "open", FallbackClosed: "closed"}

// String returns "local", "open" or "closed", or "Fallback(n)" for a value
// that is none of them.
func (f Fallback) String() string {
	if int(f) < len(fallbackNames) {
		return fallbackNames[f]
	}
	return "Fallback(" + strconv.Itoa(int(f)) + ")"
}

// MarshalText writes the name of f; a value that is not a mode is an error.
func (f Fallback) MarshalText() ([]byte, error) {
	if int(f) >= len(fallbackNames) {
		return nil, errors.New("ratelimit: fallback " + strconv.Itoa(int(f)) + " is not a mode")
	}
	return []byte(fallbackNames[f]), nil
}

// UnmarshalText reads "local", "open" or "closed" (also "fail-open",
// "fail-closed"), in any case.
func (f *Fallback) UnmarshalText(b []byte) error {
	switch strings.ToLower(string(b)) {
	case "local":
		*f = FallbackLocal
	case "open", "fail-open", "fail_open":
		*f = FallbackOpen
	case "closed", "fail-closed", "fail_closed":
		*f = FallbackClosed
	default:
		return errors.New("must be local, open or closed")
	}
	return nil
}
