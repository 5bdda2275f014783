package r4czap

import (
	"context"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/internal/caller"
	"github.com/resilience4cata/r4c/internal/logevent"
)

// Messages of the entries Listener writes.
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

// WithTrace makes the listener add the fields trace_id and span_id to
// every entry, as ids returns them from the ctx of the call that caused
// the event (an empty id is left out). r4cotel.TraceIDs (module
// github.com/resilience4cata/r4c/metrics/otel) reads OpenTelemetry's. It
// takes effect with [ContextListener], which receives that ctx.
func WithTrace(ids func(ctx context.Context) (traceID, spanID string)) Option {
	return traceOption(ids)
}

// listener is the state of one listener.
type listener struct {
	logger *zap.Logger
	trace  func(context.Context) (string, string)
}

// Listener returns an event listener that logs each event to logger as one
// entry with structured fields, at the level the package doc lists. A nil
// logger means zap.L(), looked up at each event. When the logger records
// its caller (zap.AddCaller), the entry's caller is the line of the
// program that made the call which caused the event, not a line of r4c.
//
// The listener is safe for concurrent use. It calls logger.Check before
// building the fields, so an event below the core's level allocates
// nothing. It runs on the publishing goroutine: for a slow core, wrap it in
// events.NewBuffered. To log the trace of each call, use [ContextListener].
func Listener(logger *zap.Logger, opts ...Option) func(events.Event) {
	l := newListener(logger, opts)
	return func(e events.Event) { l.log(context.Background(), e) }
}

// ContextListener is [Listener] for events.Bus.SubscribeContext: with
// [WithTrace], each entry carries the trace_id and span_id of the call that
// caused the event:
//
//	stop := reg.Events().SubscribeContext(r4czap.ContextListener(logger, r4czap.WithTrace(r4cotel.TraceIDs)))
//
// For a slow core, wrap it in events.NewBufferedContext.
func ContextListener(logger *zap.Logger, opts ...Option) func(context.Context, events.Event) {
	return newListener(logger, opts).log
}

func newListener(logger *zap.Logger, opts []Option) *listener {
	l := &listener{logger: logger}
	for _, o := range opts {
		if o != nil {
			o.apply(l)
		}
	}
	return l
}

// log writes e's entry if the core takes its level.
func (l *listener) log(ctx context.Context, e events.Event) {
	if e == nil {
		return
	}
	logger := l.logger
	if logger == nil {
		logger = zap.L()
	}
	level, msg := levelOf(e)
	ce := logger.Check(level, msg)
	if ce == nil {
		return
	}
	if ce.Caller.Defined {
		// zap took our line; point at the caller's.
		pc := caller.PC()
		file, line, fn := caller.Frame(pc)
		ce.Caller = zapcore.EntryCaller{Defined: pc != 0, PC: pc, File: file, Line: line, Function: fn}
	}
	var buf [12]zap.Field
	fields := appendFields(buf[:0], e)
	if l.trace != nil {
		if tid, sid := l.trace(ctx); tid != "" {
			fields = append(fields, zap.String("trace_id", tid))
			if sid != "" {
				fields = append(fields, zap.String("span_id", sid))
			}
		}
	}
	ce.Write(fields...)
}

// levels maps a logevent.Severity to the level of the entry.
var levels = [...]zapcore.Level{zapcore.DebugLevel, zapcore.InfoLevel, zapcore.WarnLevel}

// levelOf returns the level and message of e's entry.
func levelOf(e events.Event) (zapcore.Level, string) {
	sev, msg := logevent.Of(e)
	return levels[sev], msg
}

// appendFields appends the fields of e's entry.
func appendFields(fields []zap.Field, e events.Event) []zap.Field {
	switch e := e.(type) {
	case events.LimitChanged:
		return append(fields,
			zap.String("policy", "adaptivelimit"),
			zap.String("instance", e.Instance),
			zap.Int("old_limit", e.OldLimit),
			zap.Int("new_limit", e.NewLimit),
			zap.Duration("window_latency", e.WindowLatency),
			optDuration("long_latency", e.LongLatency),
			zap.Int("max_in_flight", e.MaxInFlight),
			zap.Bool("dropped", e.Dropped),
			zap.Int("samples", e.Samples))
	case events.CallRejected:
		return append(fields,
			zap.String("policy", e.Policy),
			zap.String("instance", e.Instance),
			zap.Error(e.Err))
	case events.BreakerStateChanged:
		return append(fields,
			zap.String("policy", "breaker"),
			zap.String("instance", e.Instance),
			zap.String("from", e.From),
			zap.String("to", e.To))
	case events.RetryAttempt:
		return append(fields,
			zap.String("policy", "retry"),
			zap.String("instance", e.Instance),
			zap.Int("attempt", e.Attempt),
			zap.Duration("wait", e.Wait),
			zap.Error(e.Err))
	case events.Timeout:
		return append(fields,
			zap.String("policy", "timeout"),
			zap.String("instance", e.Instance),
			zap.Duration("timeout", e.Timeout))
	case events.HedgeStarted:
		return append(fields,
			zap.String("policy", "hedge"),
			zap.String("instance", e.Instance),
			zap.Int("attempt", e.Attempt))
	case events.FallbackUsed:
		return append(fields,
			zap.String("policy", "fallback"),
			zap.String("instance", e.Instance),
			zap.Error(e.Err))
	case events.StoreStateChanged:
		return append(fields,
			zap.String("policy", e.Policy),
			zap.String("instance", e.Instance),
			zap.Bool("fallback", e.Fallback),
			zap.String("mode", e.Mode),
			zap.Error(e.Err))
	}
	policy, instance := e.Source()
	return append(fields,
		zap.String("policy", policy),
		zap.String("instance", instance),
		zap.String("kind", e.Kind().String()))
}

// optDuration returns the field key=d, or a field that encodes nothing for
// a zero d.
func optDuration(key string, d time.Duration) zap.Field {
	if d == 0 {
		return zap.Skip()
	}
	return zap.Duration(key, d)
}
