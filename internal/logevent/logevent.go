// Package logevent is the one rule the logging adapters (logging/slog and
// the zap module) share: the message and severity of each event's log
// entry. Each adapter maps the severity to its own level and writes the
// event's fields in its own types.
package logevent

import "github.com/resilience4cata/r4c/events"

// Severity is an entry's level, before an adapter maps it to its own.
type Severity int8

// The severities, lowest first.
const (
	Debug Severity = iota
	Info
	Warn
)

// The messages of the entries.
const (
	MsgLimitChanged        = "r4c: limit changed"
	MsgCallRejected        = "r4c: call rejected"
	MsgBreakerStateChanged = "r4c: breaker state changed"
	MsgRetryAttempt        = "r4c: retry attempt"
	MsgTimeout             = "r4c: timeout"
	MsgHedgeStarted        = "r4c: hedge started"
	MsgFallbackUsed        = "r4c: fallback used"
	MsgStoreStateChanged   = "r4c: store state changed"
	MsgEvent               = "r4c: event"
)

// Of returns the severity and message of e's entry: a limit change, a
// timeout or a breaker closing is Info; a breaker opening and a shared
// store lost are Warn (found again, Info); a rejection, a retry, a hedge,
// a fallback and any other event are Debug.
func Of(e events.Event) (Severity, string) {
	switch e := e.(type) {
	case events.LimitChanged:
		return Info, MsgLimitChanged
	case events.CallRejected:
		return Debug, MsgCallRejected
	case events.BreakerStateChanged:
		if e.To == "open" || e.To == "forced-open" {
			return Warn, MsgBreakerStateChanged
		}
		return Info, MsgBreakerStateChanged
	case events.RetryAttempt:
		return Debug, MsgRetryAttempt
	case events.Timeout:
		return Info, MsgTimeout
	case events.HedgeStarted:
		return Debug, MsgHedgeStarted
	case events.FallbackUsed:
		return Debug, MsgFallbackUsed
	case events.StoreStateChanged:
		if e.Fallback {
			return Warn, MsgStoreStateChanged
		}
		return Info, MsgStoreStateChanged
	}
	return Debug, MsgEvent
}
