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
package events
