package r4cslog

import (
	"context"
	"log/slog"
	"time"

	"github.com/resilience4cata/r4c/events"
)

// Messages of the records Listener writes.
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
// record with structured attributes, at the level the package doc lists.
// A nil logger means slog.Default(), looked up at each event.
//
// The listener is safe for concurrent use (as the logger's handler must
// be). It checks the handler's Enabled before building a record, so an
// event below the handler's level allocates nothing. It runs on the
// publishing goroutine: for a slow handler, wrap it in events.NewBuffered.
func Listener(logger *slog.Logger) func(events.Event) {
	return func(e events.Event) { log(logger, e) }
}

func log(logger *slog.Logger, e events.Event) {
	if logger == nil {
		logger = slog.Default()
	}
	ctx := context.Background()
	switch e := e.(type) {
	case events.LimitChanged:
		if logger.Enabled(ctx, slog.LevelInfo) {
			logger.LogAttrs(ctx, slog.LevelInfo, MsgLimitChanged,
				slog.String("policy", "adaptivelimit"),
				slog.String("instance", e.Instance),
				slog.Int("old_limit", e.OldLimit),
				slog.Int("new_limit", e.NewLimit),
				slog.Duration("window_latency", e.WindowLatency),
				optDuration("long_latency", e.LongLatency),
				slog.Int("max_in_flight", e.MaxInFlight),
				slog.Bool("dropped", e.Dropped),
				slog.Int("samples", e.Samples))
		}
	case events.CallRejected:
		if logger.Enabled(ctx, slog.LevelDebug) {
			logger.LogAttrs(ctx, slog.LevelDebug, MsgCallRejected,
				slog.String("policy", e.Policy),
				slog.String("instance", e.Instance),
				errAttr(e.Err))
		}
	case events.BreakerStateChanged:
		level := slog.LevelInfo
		if e.To == "open" || e.To == "forced-open" {
			level = slog.LevelWarn
		}
		if logger.Enabled(ctx, level) {
			logger.LogAttrs(ctx, level, MsgBreakerStateChanged,
				slog.String("policy", "breaker"),
				slog.String("instance", e.Instance),
				slog.String("from", e.From),
				slog.String("to", e.To))
		}
	case events.RetryAttempt:
		if logger.Enabled(ctx, slog.LevelDebug) {
			logger.LogAttrs(ctx, slog.LevelDebug, MsgRetryAttempt,
				slog.String("policy", "retry"),
				slog.String("instance", e.Instance),
				slog.Int("attempt", e.Attempt),
				slog.Duration("wait", e.Wait),
				errAttr(e.Err))
		}
	case events.Timeout:
		if logger.Enabled(ctx, slog.LevelInfo) {
			logger.LogAttrs(ctx, slog.LevelInfo, MsgTimeout,
				slog.String("policy", "timeout"),
				slog.String("instance", e.Instance),
				slog.Duration("timeout", e.Timeout))
		}
	case events.HedgeStarted:
		if logger.Enabled(ctx, slog.LevelDebug) {
			logger.LogAttrs(ctx, slog.LevelDebug, MsgHedgeStarted,
				slog.String("policy", "hedge"),
				slog.String("instance", e.Instance),
				slog.Int("attempt", e.Attempt))
		}
	case events.FallbackUsed:
		if logger.Enabled(ctx, slog.LevelDebug) {
			logger.LogAttrs(ctx, slog.LevelDebug, MsgFallbackUsed,
				slog.String("policy", "fallback"),
				slog.String("instance", e.Instance),
				errAttr(e.Err))
		}
	case events.StoreStateChanged:
		// Falling back from a shared store is worth a warning; finding it
		// again, an info.
		level := slog.LevelInfo
		if e.Fallback {
			level = slog.LevelWarn
		}
		if logger.Enabled(ctx, level) {
			logger.LogAttrs(ctx, level, MsgStoreStateChanged,
				slog.String("policy", e.Policy),
				slog.String("instance", e.Instance),
				slog.Bool("fallback", e.Fallback),
				slog.String("mode", e.Mode),
				errAttr(e.Err))
		}
	default:
		if e != nil && logger.Enabled(ctx, slog.LevelDebug) {
			policy, instance := e.Source()
			logger.LogAttrs(ctx, slog.LevelDebug, MsgEvent,
				slog.String("policy", policy),
				slog.String("instance", instance),
				slog.String("kind", e.Kind().String()))
		}
	}
}

// optDuration returns the attribute key=d, or an empty attribute (which
// handlers ignore) for a zero d.
func optDuration(key string, d time.Duration) slog.Attr {
	if d == 0 {
		return slog.Attr{}
	}
	return slog.Duration(key, d)
}

// errAttr returns the attribute "error" for err, or an empty attribute
// (which handlers ignore) for a nil err.
func errAttr(err error) slog.Attr {
	if err == nil {
		return slog.Attr{}
	}
	return slog.Any("error", err)
}
