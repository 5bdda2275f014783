package events_test

import (
	"fmt"

	"github.com/resilience4cata/r4c/events"
)

// A listener switches on the event's concrete type. Publishers check
// Active before building an event, so an unobserved bus costs one atomic
// load.
func ExampleBus() {
	var bus events.Bus
	stop := bus.Subscribe(func(e events.Event) {
		switch e := e.(type) {
		case events.LimitChanged:
			fmt.Printf("%s: limit %d -> %d\n", e.Instance, e.OldLimit, e.NewLimit)
		case events.CallRejected:
			fmt.Printf("%s %s rejected a call (%s)\n", e.Policy, e.Instance, e.Kind())
		}
	})

	if bus.Active() { // the publisher's side
		bus.Publish(events.LimitChanged{Instance: "search", OldLimit: 20, NewLimit: 24})
		bus.Publish(events.CallRejected{Policy: "adaptivelimit", Instance: "search"})
	}
	stop()
	fmt.Println("active after stop:", bus.Active())
	// Output:
	// search: limit 20 -> 24
	// adaptivelimit search rejected a call (call rejected)
	// active after stop: false
}

// NewBuffered hands events to a slow listener on a goroutine of its own;
// Close waits until the queued events are handled.
func ExampleNewBuffered() {
	var bus events.Bus
	slow := events.NewBuffered(128, func(e events.Event) {
		p, inst := e.Source()
		fmt.Println("logged", e.Kind(), "from", p, inst)
	})
	stop := bus.Subscribe(slow.Listen)

	bus.Publish(events.BreakerStateChanged{Instance: "payments", From: "closed", To: "open"})
	bus.Publish(events.RetryAttempt{Instance: "payments", Attempt: 2})

	stop()
	slow.Close()
	fmt.Println("dropped:", slow.Dropped())
	// Output:
	// logged breaker state changed from breaker payments
	// logged retry attempt from retry payments
	// dropped: 0
}
