package events

import (
	"time"
)

// Event is implemented by every event type of this package. Events are
// plain values: a listener may keep them.
type Event interface {
	// Kind returns what happened.
	Kind() Kind
	// Source returns the policy kind ("adaptivelimit", "breaker", ...) and the
	// id of the instance that published the event.
	Source() (policy, instance string)
}

// Kind says what an event reports.
type Kind uint8

// The kinds of event.
const (
	KindLimitChanged Kind = iota + 1
	KindCallRejected
	KindBreakerStateChanged
	KindRetryAttempt
	KindTimeout
	KindHedgeStarted
	KindFallbackUsed
	KindConfigChanged
	KindStoreStateChanged
)

var kindNames = [...]string{
	KindLimitChanged:        "limit changed",
	KindCallRejected:        "call rejected",
	KindBreakerStateChanged: "breaker state changed",
	KindRetryAttempt:        "retry attempt",
	KindTimeout:             "timeout",
	KindHedgeStarted:        "hedge started",
	KindFallbackUsed:        "fallback used",
	KindConfigChanged:       "config changed",
	KindStoreStateChanged:   "store state changed",
}

// String returns the kind in words, such as "limit changed", or "unknown"
// for a value that is not one of the kinds.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// LimitChanged reports that an adaptive limit moved at the end of a window.
// A window that keeps the limit publishes nothing.
type LimitChanged struct {
	// Instance is the id of the adaptive limit.
	Instance string
	// OldLimit and NewLimit are the limit before and after (integer part).
	OldLimit, NewLimit int
	// WindowLatency is the window's average latency; LongLatency the
	// long-term average after the window (zero for algorithms without one).
	WindowLatency, LongLatency time.Duration
	// MaxInFlight is the most calls seen in flight during the window.
	MaxInFlight int
	// Dropped reports whether a call of the window was a drop.
	Dropped bool
	// Samples is the number of samples of the window.
	Samples int
}

// Kind returns KindLimitChanged.
func (LimitChanged) Kind() Kind { return KindLimitChanged }

// Source returns "adaptivelimit" and the instance id.
func (e LimitChanged) Source() (string, string) { return "adaptivelimit", e.Instance }

// CallRejected reports that a policy refused a call without running it.
type CallRejected struct {
	// Policy is the kind that rejected: "adaptivelimit", "bulkhead",
	// "ratelimit" or "breaker".
	Policy string
	// Instance is the id of the rejecting instance.
	Instance string
	// Err is the rejection returned to the caller.
	Err error
}

// Kind returns KindCallRejected.
func (CallRejected) Kind() Kind { return KindCallRejected }

// Source returns the rejecting policy kind and instance.
func (e CallRejected) Source() (string, string) { return e.Policy, e.Instance }

// BreakerStateChanged reports a circuit breaker's transition.
type BreakerStateChanged struct {
	// Instance is the id of the breaker.
	Instance string
	// From and To are the state names: "closed", "open", "half-open",
	// "disabled", "forced-open".
	From, To string
}

// Kind returns KindBreakerStateChanged.
func (BreakerStateChanged) Kind() Kind { return KindBreakerStateChanged }

// Source returns "breaker" and the instance id.
func (e BreakerStateChanged) Source() (string, string) { return "breaker", e.Instance }

// RetryAttempt reports that a retry will try again after Wait.
type RetryAttempt struct {
	// Instance is the id of the retry.
	Instance string
	// Attempt is the number of the attempt about to start (2 for the first retry).
	Attempt int
	// Wait is the delay before it.
	Wait time.Duration
	// Err is the error of the attempt that failed.
	Err error
}

// Kind returns KindRetryAttempt.
func (RetryAttempt) Kind() Kind { return KindRetryAttempt }

// Source returns "retry" and the instance id.
func (e RetryAttempt) Source() (string, string) { return "retry", e.Instance }

// Timeout reports that a call's deadline fired before it returned.
type Timeout struct {
	// Instance is the id of the timeout.
	Instance string
	// Timeout is the configured duration.
	Timeout time.Duration
}

// Kind returns KindTimeout.
func (Timeout) Kind() Kind { return KindTimeout }

// Source returns "timeout" and the instance id.
func (e Timeout) Source() (string, string) { return "timeout", e.Instance }

// HedgeStarted reports that a hedge started another attempt.
type HedgeStarted struct {
	// Instance is the id of the hedge.
	Instance string
	// Attempt is the number of the attempt started (2 for the first hedge).
	Attempt int
}

// Kind returns KindHedgeStarted.
func (HedgeStarted) Kind() Kind { return KindHedgeStarted }

// Source returns "hedge" and the instance id.
func (e HedgeStarted) Source() (string, string) { return "hedge", e.Instance }

// FallbackUsed reports that a fallback replaced a failed call's outcome.
type FallbackUsed struct {
	// Instance is the id of the fallback.
	Instance string
	// Err is the error the fallback handled.
	Err error
}

// Kind returns KindFallbackUsed.
func (FallbackUsed) Kind() Kind { return KindFallbackUsed }

// Source returns "fallback" and the instance id.
func (e FallbackUsed) Source() (string, string) { return "fallback", e.Instance }

// ConfigChanged reports that a live instance took new settings: from
// Registry.Reload (a source changed) or from a setter of its handle (such
// as ratelimit.Handle.SetLimit). One event covers every key one change set
// on the instance; a change that sets nothing new publishes nothing.
type ConfigChanged struct {
	// Policy is the kind of the instance: "adaptivelimit", "bulkhead",
	// "ratelimit", "breaker", "retry" or "timeout".
	Policy string
	// Instance is the id of the instance.
	Instance string
	// Changes lists the keys that changed, in the order of the kind's key
	// table.
	Changes []KeyChange
}

// KeyChange is one key of a [ConfigChanged]: its flat-key name within its
// kind (as in docs/configuration.md, such as "limit") and its value before
// and after, as text the key reads back ("50", "1s").
type KeyChange struct {
	Key      string
	Old, New string
}

// Kind returns KindConfigChanged.
func (ConfigChanged) Kind() Kind { return KindConfigChanged }

// Source returns the policy kind and the instance id.
func (e ConfigChanged) Source() (string, string) { return e.Policy, e.Instance }

// Keys returns the names of the keys that changed, in order.
func (e ConfigChanged) Keys() []string {
	keys := make([]string, len(e.Changes))
	for i, c := range e.Changes {
		keys[i] = c.Key
	}
	return keys
}

// StoreStateChanged reports that a policy whose state lives in a shared
// store (a rate limiter on Redis) lost its store and fell back to deciding
// calls without it, or found it again. It is published once per change,
// not per call.
type StoreStateChanged struct {
	// Policy is the kind of the policy: "ratelimit".
	Policy string
	// Instance is the id of the instance.
	Instance string
	// Fallback is true when the policy fell back (its store failed), false
	// when it is back on its store.
	Fallback bool
	// Mode is what decides calls while falling back: "local", "open" or
	// "closed".
	Mode string
	// Err is the store failure that made it fall back; nil when it is back.
	Err error
}

// Kind returns KindStoreStateChanged.
func (StoreStateChanged) Kind() Kind { return KindStoreStateChanged }

// Source returns the policy kind and the instance id.
func (e StoreStateChanged) Source() (string, string) { return e.Policy, e.Instance }
