package clocktest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
)

// Timers fire in deadline order while the clock advances, and Now reads
// each timer's deadline while it fires.
func ExampleManualClock() {
	clk := clocktest.NewManualClock()
	for _, d := range []time.Duration{3 * time.Second, time.Second, 2 * time.Second} {
		clk.AfterFunc(d, func() {
			fmt.Printf("%v timer fired at +%v\n", d, clk.Now().Sub(clocktest.Start))
		})
	}
	fmt.Println("pending:", clk.Pending())
	clk.Advance(2500 * time.Millisecond)
	fmt.Println("now +", time.Duration(clk.Nanotime()), "pending:", clk.Pending())
	clk.Advance(time.Second)
	// Output:
	// pending: 3
	// 1s timer fired at +1s
	// 2s timer fired at +2s
	// now + 2.5s pending: 1
	// 3s timer fired at +3s
}

// A test waits with BlockUntil until a goroutine has armed its timer, then
// advances the clock: no sleeping on the real clock, no flakiness.
func ExampleManualClock_BlockUntil() {
	clk := clocktest.NewManualClock()
	ctx := context.Background()

	done := make(chan time.Duration)
	go func() {
		start := clk.Nanotime()
		_ = policy.Sleep(ctx, clk, 5*time.Second) // arms a timer on clk
		done <- time.Duration(clk.Nanotime() - start)
	}()

	if err := clk.BlockUntil(ctx, 1); err != nil { // the goroutine is now waiting
		panic(err)
	}
	clk.Advance(5 * time.Second)
	fmt.Println("slept", <-done)
	// Output:
	// slept 5s
}

// A deadline context made by the clock ends when the clock reaches its
// deadline, and so do contexts derived from it.
func ExampleManualClock_WithDeadline() {
	clk := clocktest.NewManualClock()
	ctx, cancel := clk.WithDeadline(context.Background(), clk.Now().Add(2*time.Second))
	defer cancel()
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()

	clk.Advance(time.Second)
	fmt.Println("after 1s:", ctx.Err())
	clk.Advance(time.Second)
	fmt.Println("after 2s:", ctx.Err(), "/", context.Cause(child))
	// Output:
	// after 1s: <nil>
	// after 2s: context deadline exceeded / context deadline exceeded
}

// Set jumps to an instant, firing what is due on the way; setting an
// earlier instant moves the clock back and fires nothing.
func ExampleManualClock_Set() {
	clk := clocktest.NewManualClock()
	clk.AfterFunc(time.Hour, func() { fmt.Println("hourly job ran") })
	clk.Set(time.Date(2026, time.January, 1, 1, 30, 0, 0, time.UTC))
	fmt.Println(clk.Now().Format(time.TimeOnly))
	clk.Set(clocktest.Start.Add(-time.Minute))
	fmt.Println(clk.Now().Format(time.TimeOnly), time.Duration(clk.Nanotime()))
	// Output:
	// hourly job ran
	// 01:30:00
	// 23:59:00 -1m0s
}
