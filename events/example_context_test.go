package events_test

import (
	"context"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c/events"
)

type requestID struct{}

// A listener added with SubscribeContext gets the ctx of the call that
// caused each event beside it: here a request id, in practice a trace
// span.
func ExampleBus_SubscribeContext() {
	var bus events.Bus
	stop := bus.SubscribeContext(func(ctx context.Context, e events.Event) {
		fmt.Printf("%s for request %v\n", e.Kind(), ctx.Value(requestID{}))
	})
	defer stop()

	ctx := context.WithValue(context.Background(), requestID{}, "r-42")
	bus.PublishContext(ctx, events.Timeout{Instance: "slow", Timeout: time.Second}) // what a policy does
	bus.Publish(events.BreakerStateChanged{Instance: "payments", From: "closed", To: "forced-open"})
	// Output:
	// timeout for request r-42
	// breaker state changed for request <nil>
}

// countFailures is a CallObserver: pipelines tell it of every call.
type countFailures struct{ failed, rejected int }

func (c *countFailures) ObserveCall(_ context.Context, call events.Call) {
	switch call.Outcome {
	case events.OutcomeFailure, events.OutcomeTimeout:
		c.failed++
	case events.OutcomeRejected:
		c.rejected++
		fmt.Printf("%s: rejected by %s\n", call.Pipeline, call.RejectedBy)
	}
}

// ObserveCalls adds an observer of every call of the registry's pipelines;
// here the pipeline's part is played by hand.
func ExampleBus_ObserveCalls() {
	var bus events.Bus
	var c countFailures
	stop := bus.ObserveCalls(&c)
	fmt.Println("observed:", bus.CallsObserved(), "active:", bus.Active())

	bus.ObserveCall(context.Background(), events.Call{Pipeline: "search", Outcome: events.OutcomeSuccess, Latency: 12 * time.Millisecond})
	bus.ObserveCall(context.Background(), events.Call{Pipeline: "search", Outcome: events.OutcomeRejected, RejectedBy: "adaptivelimit"})
	bus.ObserveCall(context.Background(), events.Call{Pipeline: "search", Outcome: events.OutcomeTimeout, Latency: time.Second})
	stop()
	fmt.Println("failed:", c.failed, "rejected:", c.rejected, "observed:", bus.CallsObserved())
	// Output:
	// observed: true active: false
	// search: rejected by adaptivelimit
	// failed: 1 rejected: 1 observed: false
}
