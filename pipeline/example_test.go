package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// The builder places each policy at its stage, whatever the order of the
// calls.
func ExampleNewBuilder() {
	reg, _ := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	p, err := pipeline.NewBuilder[string](reg, "search").
		Timeout(func(c *timeout.Config) { c.Timeout = 2 * time.Second }).
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.MaxLimit = 100 }).
		Retry(func(c *retry.Config) { c.MaxAttempts = 2 }).
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Policies())
	s, err := p.ExecuteContext(context.Background(), func(ctx context.Context) (string, error) {
		deadline, _ := ctx.Deadline()
		return "results before " + deadline.Format(time.TimeOnly), nil
	})
	fmt.Println(s, err)
	// Output:
	// [retry adaptivelimit timeout]
	// results before 00:00:02 <nil>
}

// ExecuteFuture holds the slot until the future the function returns
// completes; a full limit fails the next call at once.
func ExamplePipeline_ExecuteFuture() {
	clk := clocktest.NewManualClock()
	reg, _ := r4c.NewRegistry(r4c.WithClock(clk),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 }))
	p, _ := pipeline.NewBuilder[string](reg, "orders").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1 }).
		Build()

	pr := future.NewPromise[string]()
	f := p.ExecuteFuture(context.Background(), func(ctx context.Context) *future.Future[string] {
		return pr.Future() // the work goes on elsewhere
	})
	_, err := p.ExecuteFuture(context.Background(), func(ctx context.Context) *future.Future[string] {
		return future.Completed("never called")
	}).Get(context.Background())
	fmt.Println(errors.Is(err, adaptivelimit.ErrLimitExceeded))

	clk.Advance(time.Second) // the call took 1s, and its window (1s) is over
	pr.Complete("placed")
	v, _ := f.Get(context.Background())
	h, _ := reg.AdaptiveLimit("orders")
	s := h.Snapshot()
	fmt.Println(v, s.InFlight, s.Windows, s.WindowLatency)
	// Output:
	// true
	// placed 0 1 1s
}

// A retry outside a breaker, around a full adaptive limit: the limit's
// rejection is an ordinary error to both, so the retry tries again after
// its wait (holding no slot meanwhile) and the breaker records it.
func ExampleBuilder_Retry() {
	clk := clocktest.NewManualClock()
	reg, _ := r4c.NewRegistry(r4c.WithClock(clk))
	p, _ := pipeline.NewBuilder[string](reg, "orders").
		Retry(func(c *retry.Config) { c.MaxAttempts = 2; c.Wait = 100 * time.Millisecond }).
		Breaker(func(c *breaker.Config) { c.MinimumCalls = 10 }).
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1 }).
		Build()

	// One call holds the only slot.
	held := future.NewPromise[string]()
	p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[string] { return held.Future() })

	done := make(chan string)
	go func() {
		v, err := p.Execute(func() (string, error) { return "placed", nil })
		done <- fmt.Sprint(v, " ", err)
	}()
	_ = clk.BlockUntil(context.Background(), 1) // the first attempt was rejected: the retry waits
	held.Complete("first")                      // the slot is free again
	clk.Advance(100 * time.Millisecond)         // the second attempt runs
	fmt.Println(<-done)

	b, _ := reg.Breaker("orders")
	s := b.Snapshot()
	fmt.Println(s.State, s.Failures, "failure recorded")
	// Output:
	// placed <nil>
	// closed 1 failure recorded
}

// Bind binds a pipeline to a function of one argument once: each call
// gives only the argument, and allocates nothing for it.
func ExampleBind() {
	reg, _ := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	p, err := pipeline.NewBuilder[string](reg, "greet").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.MaxLimit = 100 }).
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	type greeting struct {
		name  string
		times int
	}
	greet := pipeline.Bind(p, func(_ context.Context, g greeting) (string, error) {
		return fmt.Sprintf("hello %s x%d", g.name, g.times), nil
	})
	for i, name := range []string{"ada", "grace"} {
		s, err := greet.Execute(greeting{name, i + 1})
		fmt.Println(s, err)
	}
	// Output:
	// hello ada x1 <nil>
	// hello grace x2 <nil>
}

// BindFuture does the same for asynchronous calls: the slot is held until
// the call's future completes.
func ExampleBindFuture() {
	reg, _ := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	p, err := pipeline.NewBuilder[int](reg, "square").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1; c.MinLimit = 1 }).
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	pending := future.NewPromise[int]()
	square := pipeline.BindFuture(p, func(_ context.Context, n int) *future.Future[int] {
		if n == 3 {
			return pending.Future()
		}
		return future.Completed(n * n)
	})
	ctx := context.Background()
	f := square.ExecuteFuture(ctx, 3) // pending: holds the only slot
	_, err = square.ExecuteFuture(ctx, 4).Get(ctx)
	fmt.Println(errors.Is(err, adaptivelimit.ErrLimitExceeded))
	pending.Complete(9)
	v, err := f.Get(ctx)
	fmt.Println(v, err)
	v, err = square.ExecuteFuture(ctx, 5).Get(ctx)
	fmt.Println(v, err)
	// Output:
	// true
	// 9 <nil>
	// 25 <nil>
}
