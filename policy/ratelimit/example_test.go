package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// Two permits per second: both at once after a quiet spell, then one every
// 500ms. On a ManualClock permits come exactly when the clock says.
func ExampleLimiter_Allow() {
	clk := clocktest.NewManualClock()
	l, _ := ratelimit.New(ratelimit.Config{Limit: 2, Period: time.Second}, policy.Env{Clock: clk})
	fmt.Println(l.Allow(), l.Allow(), l.Allow())
	clk.Advance(499 * time.Millisecond)
	fmt.Println(l.Allow())
	clk.Advance(time.Millisecond)
	fmt.Println(l.Allow(), l.Available())
	// Output:
	// true true false
	// false
	// true 0
}

// A refusal says when to try again; the error is preallocated, so
// RetryAfter asks the limiter when it is called.
func ExampleRateLimitedError_RetryAfter() {
	clk := clocktest.NewManualClock()
	l, _ := ratelimit.New(ratelimit.Config{Limit: 10, Period: time.Second, Burst: 1}, policy.Env{Clock: clk, Instance: "api"})
	_ = l.Wait(context.Background())
	err := l.Wait(context.Background())
	var rl *ratelimit.RateLimitedError
	if errors.As(err, &rl) {
		fmt.Println(err)
		fmt.Println("retry after", rl.RetryAfter())
		clk.Advance(30 * time.Millisecond)
		fmt.Println("retry after", rl.RetryAfter())
	}
	fmt.Println(errors.Is(err, ratelimit.ErrRateLimited), errors.Is(err, policy.ErrRejected))
	// Output:
	// r4c: rate limited: 10 per 1s (ratelimit api)
	// retry after 100ms
	// retry after 70ms
	// true true
}

// With MaxWait a call waits for its permit if it comes soon enough.
func ExampleLimiter_Wait() {
	clk := clocktest.NewManualClock()
	l, _ := ratelimit.New(ratelimit.Config{Limit: 1, Period: time.Second, MaxWait: time.Second}, policy.Env{Clock: clk})
	fmt.Println(l.Wait(context.Background())) // the burst permit

	got := make(chan error)
	go func() { got <- l.Wait(context.Background()) }()
	_ = clk.BlockUntil(context.Background(), 1) // waiting for the next permit
	clk.Advance(time.Second)
	fmt.Println(<-got)

	l2, _ := ratelimit.New(ratelimit.Config{Limit: 1, Period: 2 * time.Second, MaxWait: time.Second}, policy.Env{Clock: clk})
	_ = l2.Allow()
	fmt.Println(l2.Wait(context.Background())) // 2s away: beyond MaxWait, refused at once
	// Output:
	// <nil>
	// <nil>
	// r4c: rate limited: 1 per 2s
}

// Stage puts the limiter in a chain.
func ExampleStage() {
	clk := clocktest.NewManualClock()
	l, _ := ratelimit.New(ratelimit.Config{Limit: 1, Period: time.Minute}, policy.Env{Clock: clk, Instance: "api"})
	links := []policy.Link[string]{ratelimit.Stage[string](l)} // made once, when a pipeline is built
	call := func(context.Context) (string, error) { return "ok", nil }
	for range 2 {
		v, err := policy.NewNext(links, call, nil).Call(context.Background())
		fmt.Printf("%q %v\n", v, err)
	}
	fmt.Printf("%+v\n", ratelimit.NewHandle(l).Snapshot())
	// Output:
	// "ok" <nil>
	// "" r4c: rate limited: 1 per 1m0s (ratelimit api)
	// {Disabled:false Limit:1 Period:1m0s Burst:1 MaxWait:0s Available:0 Rejections:1 Store:false Fallback:false StoreFailures:0 Fallbacks:0}
}
