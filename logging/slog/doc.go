// Package r4cslog logs r4c's events with the standard library's log/slog.
//
// [Listener] turns a *slog.Logger into an event listener; subscribe it to a
// registry's bus:
//
//	stop := reg.Events().Subscribe(r4cslog.Listener(logger))
//	defer stop()
//
// Each event becomes one record with structured attributes, at a level
// chosen by what it means for an operator:
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
// Every record carries policy (the policy kind, such as "adaptivelimit")
// and instance (the instance id); the others depend on the event:
// old_limit, new_limit, window_latency, long_latency (Gradient2 only),
// max_in_flight, dropped and samples for a limit change; error for a rejection, a retry
// and a fallback; from and to for a breaker transition; attempt and wait for
// a retry; timeout for a timeout; attempt for a hedge; kind for an event of
// another type.
//
// # Traces and the caller's line
//
// [ContextListener] subscribes with events.Bus.SubscribeContext and hands
// the ctx of the call that caused each event to the handler, so handlers
// that read trace or request ids from ctx find them; [WithTrace] adds the
// attributes trace_id and span_id read by a function of that ctx, such as
// r4cotel.TraceIDs:
//
//	stop := reg.Events().SubscribeContext(
//		r4cslog.ContextListener(logger, r4cslog.WithTrace(r4cotel.TraceIDs)))
//
// With either listener, a record's source (HandlerOptions.AddSource) is the
// line of the program that made the call through the pipeline, not a line
// of r4c; an event published on a goroutine of r4c's own has no source.
//
// # Slow handlers
//
// A listener runs on the goroutine of the call that caused the event, so a
// handler that writes to a slow sink (a network, a contended file) slows
// that call. Records below the handler's level cost one Enabled check and
// allocate nothing. For a slow handler, wrap the listener in
// events.NewBuffered: it queues events in a fixed buffer, logs them on a
// goroutine of its own and drops (and counts) what it cannot keep up with,
// so a call never waits for the log:
//
//	buf := events.NewBuffered(1024, r4cslog.Listener(logger))
//	defer buf.Close()
//	stop := reg.Events().Subscribe(buf.Listen)
//	defer stop()
//
// events.NewBufferedContext does the same for a [ContextListener]; the
// records then carry the trace ids but no source.
//
// The zap equivalent is in the module github.com/resilience4cata/r4c/logging/zap.
package r4cslog
