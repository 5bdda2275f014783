package generate_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/examples/generate"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// The reference page's async example, through the generated wrapper: two
// pending calls hold both slots of orders-async, the third is rejected at
// once, and completing them after 1 s closes a window with a latency of
// 1 s.
func ExampleNewOrderClientResilient() {
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(
		r4c.WithClock(clk),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 }),
	)
	if err != nil {
		panic(err)
	}
	backend := newOrders()
	orders, err := generate.NewOrderClientResilient(backend, reg)
	if err != nil {
		panic(err)
	}
	limit, _ := reg.AdaptiveLimit("orders-async")

	a := orders.PlaceAsync("a") // pending: holds a slot
	b := orders.PlaceAsync("b") // pending: holds the other
	c := orders.PlaceAsync("c") // full: rejected at once
	select {
	case <-c.Done():
		_, err := c.Get(context.Background())
		fmt.Println("c rejected:", errors.Is(err, adaptivelimit.ErrLimitExceeded))
	default:
		fmt.Println("c pending")
	}

	clk.Advance(time.Second) // the calls took 1 s; the window is over
	backend.complete("a", "placed a")
	backend.complete("b", "placed b")
	va, _ := a.Get(context.Background())
	vb, _ := b.Get(context.Background())
	fmt.Println(va, vb)
	s := limit.Snapshot()
	fmt.Println("windows", s.Windows, "latency", s.WindowLatency, "in flight", s.InFlight)
	fmt.Println(backend.Calls())
	// Output:
	// c rejected: true
	// placed a placed b
	// windows 1 latency 1s in flight 0
	// [PlaceAsync a PlaceAsync b]
}

// A method with several results returns them all, through the pipeline.
func ExampleNewSearchClientResilient() {
	reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	if err != nil {
		panic(err)
	}
	search, err := generate.NewSearchClientResilient(catalogue{titles: []string{"go", "gopher", "gone", "java"}}, reg)
	if err != nil {
		panic(err)
	}
	fmt.Println(search.Suggest(context.Background(), "go", 2))
	h, _ := reg.AdaptiveLimit("generate.SearchClient.Suggest")
	fmt.Println("limit", h.Limit())
	// Output:
	// [go gopher] true <nil>
	// limit 20
}
