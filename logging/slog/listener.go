package r4cslog

import (
	"context"
	"log/slog"
	"time"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/internal/caller"
	"github.com/resilience4cata/r4c/internal/logevent"
	"github.com/resilience4cata/r4c/policy"
)

// Messages of the records Listener writes.
const (
	MsgLimitChanged        = logevent.MsgLimitChanged
	MsgCallRejected        = logevent.MsgCallRejected
	MsgBreakerStateChanged = logevent.MsgBreakerStateChanged
	MsgRetryAttempt        = logevent.MsgRetryAttempt
	MsgTimeout             = logevent.MsgTimeout
	MsgHedgeStarted        = logevent.MsgHedgeStarted
	MsgFallbackUsed        = logevent.MsgFallbackUsed
	MsgStoreStateChanged   = logevent.MsgStoreStateChanged
	MsgEvent               = logevent.MsgEvent
)

// Option configures a listener made by [Listener] or [ContextListener].
type Option interface {
	apply(*listener)
}

type traceOption func(context.Context) (traceID, spanID string)

func (o traceOption) apply(l *listener) { l.trace = o }

// WithTrace makes the listener add the attributes trace_id and span_id to
// every record, as ids returns them from the ctx of the call that caused
// the event (an empty id is left out). r4cotel.TraceIDs (module
// github.com/resilience4cata/r4c/metrics/otel) reads OpenTelemetry's. It
// takes effect with [ContextListener], which receives that ctx.
func WithTrace(ids func(ctx context.Context) (traceID, spanID string)) Option {
	return traceOption(ids)
}

// listener is the state of one listener.
type listener struct {
	logger *slog.Logger
	trace  func(context.Context) (string, string)
}

// Listener returns an event listener that logs each event to logger as one
// record with structured attributes, at the level the package doc lists.
// A nil logger means slog.Default(), looked up at each event. The record's
// source (for a handler with AddSource) is the line of the program that
// made the call which caused the event, not a line of r4c.
//
// The listener is safe for concurrent use (as the logger's handler must
// be). It checks the handler's Enabled before building a record, so an
// event below the handler's level allocates nothing. It runs on the
// publishing goroutine: for a slow handler, wrap it in events.NewBuffered.
// To log the trace of each call, use [ContextListener].
func Listener(logger *slog.Logger, opts ...Option) func(events.Event) {
	l := newListener(logger, opts)
	return func(e events.Event) { l.log(context.Background(), e) }
}

// ContextListener is [Listener] for events.Bus.SubscribeContext: it hands
// the ctx of the call that caused each event to the logger's handler (so
// a handler that reads trace or request ids from ctx finds them) and, with
// [WithTrace], adds trace_id and span_id to the record:
//
//	stop := reg.Events().SubscribeContext(r4cslog.ContextListener(logger, r4cslog.WithTrace(r4cotel.TraceIDs)))
//
// For a slow handler, wrap it in events.NewBufferedContext.
func ContextListener(logger *slog.Logger, opts ...Option) func(context.Context, events.Event) {
	return newListener(logger, opts).log
}

func newListener(logger *slog.Logger, opts []Option) *listener {
	l := &listener{logger: logger}
	for _, o := range opts {
		if o != nil {
			o.apply(l)
		}
	}
	return l
}

// log writes e's record, with ctx, if the handler takes its level.
func (l *listener) log(ctx context.Context, e events.Event) {
	logger := l.logger
	if logger == nil {
		logger = slog.Default()
	}
	level, msg := levelOf(e)
	if e == nil || !logger.Enabled(ctx, level) {
		return
	}
	var buf [12]slog.Attr
	attrs := appendAttrs(buf[:0], e)
	if l.trace != nil {
		if tid, sid := l.trace(ctx); tid != "" {
			attrs = append(attrs, slog.String("trace_id", tid))
			if sid != "" {
				attrs = append(attrs, slog.String("span_id", sid))
			}
		}
	}
	r := slog.NewRecord(policy.System.Now(), level, msg, caller.PC())
	r.AddAttrs(attrs...)
	_ = logger.Handler().Handle(ctx, r)
}

// levels maps a logevent.Severity to the level of the entry.
var levels = [...]slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn}

// levelOf returns the level and message of e's entry.
func levelOf(e events.Event) (slog.Level, string) {
	sev, msg := logevent.Of(e)
	return levels[sev], msg
}

// appendAttrs appends the attributes of e's record.
func appendAttrs(attrs []slog.Attr, e events.Event) []slog.Attr {
	switch e := e.(type) {
	case events.LimitChanged:
		return append(attrs,
			slog.String("policy", "adaptivelimit"),
			slog.String("instance", e.Instance),
			slog.Int("old_limit", e.OldLimit),
			slog.Int("new_limit", e.NewLimit),
			slog.Duration("window_latency", e.WindowLatency),
			optDuration("long_latency", e.LongLatency),
			slog.Int("max_in_flight", e.MaxInFlight),
			slog.Bool("dropped", e.Dropped),
			slog.Int("samples", e.Samples))
	case events.CallRejected:
		return append(attrs,
			slog.String("policy", e.Policy),
			slog.String("instance", e.Instance),
			errAttr(e.Err))
	case events.BreakerStateChanged:
		return append(attrs,
			slog.String("policy", "breaker"),
			slog.String("instance", e.Instance),
			slog.String("from", e.From),
			slog.String("to", e.To))
	case events.RetryAttempt:
		return append(attrs,
			slog.String("policy", "retry"),
			slog.String("instance", e.Instance),
			slog.Int("attempt", e.Attempt),
			slog.Duration("wait", e.Wait),
			errAttr(e.Err))
	case events.Timeout:
		return append(attrs,
			slog.String("policy", "timeout"),
			slog.String("instance", e.Instance),
			slog.Duration("timeout", e.Timeout))
	case events.HedgeStarted:
		return append(attrs,
			slog.String("policy", "hedge"),
			slog.String("instance", e.Instance),
			slog.Int("attempt", e.Attempt))
	case events.FallbackUsed:
		return append(attrs,
			slog.String("policy", "fallback"),
			slog.String("instance", e.Instance),
			errAttr(e.Err))
	case events.StoreStateChanged:
		return append(attrs,
			slog.String("policy", e.Policy),
			slog.String("instance", e.Instance),
			slog.Bool("fallback", e.Fallback),
			slog.String("mode", e.Mode),
			errAttr(e.Err))
	}
	policy, instance := e.Source()
	return append(attrs,
		slog.String("policy", policy),
		slog.String("instance", instance),
		slog.String("kind", e.Kind().String()))
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
