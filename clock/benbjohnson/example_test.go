package benbjohnson_test

import (
	"context"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clock/benbjohnson"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// The reference page's "Testing it with ManualClock", unchanged but for the
// clock: the service's benbjohnson mock drives the registry through the
// adapter. Two pending calls hold the two slots, the third is rejected at
// once, and the window closes at 1 s.
func Example() {
	mock := clock.NewMock()
	reg, err := r4c.NewRegistry(
		r4c.WithClock(benbjohnson.New(mock)),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 }), // end a window after a single call
	)
	if err != nil {
		panic(err)
	}
	orders, err := pipeline.NewBuilder[string](reg, "orders-async").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 2 }).
		Build()
	if err != nil {
		panic(err)
	}
	limit, _ := reg.AdaptiveLimit("orders-async")

	pending := map[string]*future.Promise[string]{}
	placeAsync := func(order string) *future.Future[string] {
		return orders.ExecuteFuture(context.Background(), func(context.Context) *future.Future[string] {
			pending[order] = future.NewPromise[string]()
			return pending[order].Future()
		})
	}
	a := placeAsync("a") // pending: holds a slot
	b := placeAsync("b") // pending: holds the other
	_, err = placeAsync("c").Get(context.Background())
	fmt.Println("c:", err) // full: rejected at once

	mock.Add(time.Second)             // the calls took 1 s; the window is over
	pending["a"].Complete("placed a") // ends the window
	pending["b"].Complete("placed b")
	va, _ := a.Get(context.Background())
	vb, _ := b.Get(context.Background())
	s := limit.Snapshot()
	fmt.Println(va, vb)
	fmt.Println("windows:", s.Windows, "window latency:", s.WindowLatency)
	// Output:
	// c: r4c: adaptive limit orders-async exceeded
	// placed a placed b
	// windows: 1 window latency: 1s
}

// Timers made through the adapter fire during the mock's Add that reaches
// them, and Nanotime counts the mock's time from the adapter's making.
func ExampleNew() {
	mock := clock.NewMock()
	clk := benbjohnson.New(mock)
	t := clk.NewTimer(250 * time.Millisecond)
	mock.Add(250 * time.Millisecond)
	fmt.Println("fired at", (<-t.C()).UTC().Format(time.TimeOnly+".000"), "nanotime", time.Duration(clk.Nanotime()))

	ctx, cancel := clk.WithDeadline(context.Background(), mock.Now().Add(time.Second))
	defer cancel()
	mock.Add(time.Second)
	fmt.Println(ctx.Err(), context.Cause(ctx))
	// Output:
	// fired at 00:00:00.250 nanotime 250ms
	// context deadline exceeded context deadline exceeded
}
