package r4czap

import (
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/resilience4cata/r4c/events"
)

// Messages of the entries Listener writes.
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

// Listener returns an event listener that logs each event to logger as one
// entry with structured fields, at the level the package doc lists. A nil
// logger means zap.L(), looked up at each event.
//
// The listener is safe for concurrent use. It calls logger.Check before
// building the fields, so an event below the core's level allocates
// nothing. It runs on the publishing goroutine: for a slow core, wrap it in
// events.NewBuffered.
func Listener(logger *zap.Logger) func(events.Event) {
	return func(e events.Event) { log(logger, e) }
}

func log(logger *zap.Logger, e events.Event) {
	if logger == nil {
		logger = zap.L()
	}
	switch e := e.(type) {
	case events.LimitChanged:
		if ce := logger.Check(zapcore.InfoLevel, MsgLimitChanged); ce != nil {
			ce.Write(
				zap.String("policy", "adaptivelimit"),
				zap.String("instance", e.Instance),
				zap.Int("old_limit", e.OldLimit),
				zap.Int("new_limit", e.NewLimit),
				zap.Duration("window_latency", e.WindowLatency),
				optDuration("long_latency", e.LongLatency),
				zap.Int("max_in_flight", e.MaxInFlight),
				zap.Bool("dropped", e.Dropped),
				zap.Int("samples", e.Samples))
		}
	case events.CallRejected:
		if ce := logger.Check(zapcore.DebugLevel, MsgCallRejected); ce != nil {
			ce.Write(
				zap.String("policy", e.Policy),
				zap.String("instance", e.Instance),
				zap.Error(e.Err))
		}
	case events.BreakerStateChanged:
		level := zapcore.InfoLevel
		if e.To == "open" || e.To == "forced-open" {
			level = zapcore.WarnLevel
		}
		if ce := logger.Check(level, MsgBreakerStateChanged); ce != nil {
			ce.Write(
				zap.String("policy", "breaker"),
				zap.String("instance", e.Instance),
				zap.String("from", e.From),
				zap.String("to", e.To))
		}
	case events.RetryAttempt:
		if ce := logger.Check(zapcore.DebugLevel, MsgRetryAttempt); ce != nil {
			ce.Write(
				zap.String("policy", "retry"),
				zap.String("instance", e.Instance),
				zap.Int("attempt", e.Attempt),
				zap.Duration("wait", e.Wait),
				zap.Error(e.Err))
		}
	case events.Timeout:
		if ce := logger.Check(zapcore.InfoLevel, MsgTimeout); ce != nil {
			ce.Write(
				zap.String("policy", "timeout"),
				zap.String("instance", e.Instance),
				zap.Duration("timeout", e.Timeout))
		}
	case events.HedgeStarted:
		if ce := logger.Check(zapcore.DebugLevel, MsgHedgeStarted); ce != nil {
			ce.Write(
				zap.String("policy", "hedge"),
				zap.String("instance", e.Instance),
				zap.Int("attempt", e.Attempt))
		}
	case events.FallbackUsed:
		if ce := logger.Check(zapcore.DebugLevel, MsgFallbackUsed); ce != nil {
			ce.Write(
				zap.String("policy", "fallback"),
				zap.String("instance", e.Instance),
				zap.Error(e.Err))
		}
	case events.StoreStateChanged:
		// Falling back from a shared store is worth a warning; finding it
		// again, an info.
		level := zapcore.InfoLevel
		if e.Fallback {
			level = zapcore.WarnLevel
		}
		if ce := logger.Check(level, MsgStoreStateChanged); ce != nil {
			ce.Write(
				zap.String("policy", e.Policy),
				zap.String("instance", e.Instance),
				zap.Bool("fallback", e.Fallback),
				zap.String("mode", e.Mode),
				zap.Error(e.Err))
		}
	default:
		if e == nil {
			return
		}
		if ce := logger.Check(zapcore.DebugLevel, MsgEvent); ce != nil {
			policy, instance := e.Source()
			ce.Write(
				zap.String("policy", policy),
				zap.String("instance", instance),
				zap.String("kind", e.Kind().String()))
		}
	}
}

// optDuration returns the field key=d, or a field that encodes nothing for
// a zero d.
func optDuration(key string, d time.Duration) zap.Field {
	if d == 0 {
		return zap.Skip()
	}
	return zap.Duration(key, d)
}
