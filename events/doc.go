// Package events carries what r4c's policies report: typed events, a bus to
// subscribe to them, and a buffered adapter for slow listeners.
//
// Every event type implements [Event]; a listener switches on the concrete
// type:
//
//	stop := reg.Events().Subscribe(func(e events.Event) {
//		switch e := e.(type) {
//		case events.LimitChanged:
//			log.Printf("%s: limit %d -> %d", e.Instance, e.OldLimit, e.NewLimit)
//		case events.CallRejected:
//			rejected.Add(1)
//		}
//	})
//	defer stop()
//
// Listeners run on the goroutine that caused the event, synchronously, and
// must be quick: a slow listener slows the call that published. Wrap a slow
// listener in [NewBuffered] to move it to a goroutine of its own; it drops
// (and counts) what it cannot keep up with instead of blocking a call.
//
// Admitted calls publish nothing. With no subscriber, publishing costs one
// atomic load and the event is never built.
//
// # The call's ctx
//
// Events hold no ctx. A listener that needs the ctx of the call that caused
// an event (to add a span event, to log a trace id) subscribes with
// [Bus.SubscribeContext]; policies publish with [Bus.PublishContext], and
// the bus passes the ctx beside the event, so a policy's preallocated
// event stays allocation-free. [NewBufferedContext] carries it through a
// buffer.
//
// # Call observers
//
// A [CallObserver] added with [Bus.ObserveCalls] is told of every call
// that ends in the pipelines of the registry: its pipeline, its outcome
// ([CallOutcome]), the kind that rejected it, its latency. The metrics
// modules count outcomes and record latencies with one. A pipeline checks
// for observers with one atomic load per call; observers receive no
// events and do not make the bus active.
package events
