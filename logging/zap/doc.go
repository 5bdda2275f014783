// Package r4czap logs r4c's events with go.uber.org/zap.
//
// It is a Go module of its own, so that the r4c core pulls in no zap
// dependency. [Listener] turns a *zap.Logger into an event listener;
// subscribe it to a registry's bus:
//
//	stop := reg.Events().Subscribe(r4czap.Listener(logger))
//	defer stop()
//
// Each event becomes one entry with structured fields, at a level chosen by
// what it means for an operator (the same messages, levels and keys as the
// log/slog listener of package github.com/resilience4cata/r4c/logging/slog):
//
//	event                      message                       level
//	events.LimitChanged        "r4c: limit changed"          Info
//	events.CallRejected        "r4c: call rejected"          Debug
//	events.BreakerStateChanged "r4c: breaker state changed"  Warn when the breaker opens (open, forced-open), else Info
//	events.RetryAttempt        "r4c: retry attempt"          Debug
//	events.Timeout             "r4c: timeout"                Info
//	events.HedgeStarted        "r4c: hedge started"          Debug
//	events.FallbackUsed        "r4c: fallback used"          Debug
//	events.StoreStateChanged   "r4c: store state changed"    Warn (fallback), Info (back)
//	any other events.Event     "r4c: event"                  Debug
//
// Every entry carries policy (the policy kind, such as "adaptivelimit") and
// instance (the instance id); the others depend on the event: old_limit,
// new_limit, window_latency, long_latency (Gradient2 only), max_in_flight,
// dropped and samples for a limit change; error for a rejection, a retry
// and a fallback; from and to for a breaker transition; attempt and wait for
// a retry; timeout for a timeout; attempt for a hedge; kind for an event of
// another type. Durations are encoded by the logger's DurationEncoder.
//
// # Traces and the caller's line
//
// [ContextListener] subscribes with events.Bus.SubscribeContext; with
// [WithTrace] each entry carries trace_id and span_id, read from the ctx of
// the call that caused the event by a function such as r4cotel.TraceIDs:
//
//	stop := reg.Events().SubscribeContext(
//		r4czap.ContextListener(logger, r4czap.WithTrace(r4cotel.TraceIDs)))
//
// When the logger records callers (zap.AddCaller), an entry's caller is
// the line of the program that made the call through the pipeline, found
// on the stack when the entry is written, not a line of r4c (so no
// zap.AddCallerSkip is needed, whatever the depth of the pipeline). An
// event published on a goroutine of r4c's own has no caller.
//
// # Slow cores
//
// A listener runs on the goroutine of the call that caused the event, so a
// core that writes to a slow sink slows that call. Entries below the core's
// level cost one Check and allocate nothing. For a slow core, wrap the
// listener in events.NewBuffered: it queues events in a fixed buffer, logs
// them on a goroutine of its own and drops (and counts) what it cannot keep
// up with, so a call never waits for the log:
//
//	buf := events.NewBuffered(1024, r4czap.Listener(logger))
//	defer buf.Close()
//	stop := reg.Events().Subscribe(buf.Listen)
//	defer stop()
package r4czap
