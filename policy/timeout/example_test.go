package timeout_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// A function that ignores its ctx: in the default mode the caller gets the
// timeout at the deadline all the same.
func ExampleTimeout_Run() {
	clk := clocktest.NewManualClock()
	to, _ := timeout.New(timeout.Config{Timeout: 2 * time.Second}, policy.Env{Clock: clk, Instance: "search"})

	go func() {
		_ = clk.BlockUntil(context.Background(), 1) // the call's deadline is armed
		clk.Advance(2 * time.Second)
	}()
	release := make(chan struct{})
	done := make(chan struct{})
	err := to.Run(context.Background(), func(ctx context.Context) error {
		defer close(done)
		<-release // a slow dependency that ignores ctx
		return nil
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, timeout.ErrCallTimeout), errors.Is(err, context.DeadlineExceeded))
	fmt.Println(errors.Is(err, policy.ErrRejected)) // the function was called

	close(release) // the abandoned function still runs until it returns
	<-done
	// Output:
	// r4c: call timed out after 2s (timeout search)
	// true true
	// false
}

// In cooperative mode the function runs on the caller's goroutine and must
// return once its ctx is done; its ctx carries the deadline.
func ExampleConfig_cooperative() {
	clk := clocktest.NewManualClock()
	to, _ := timeout.New(timeout.Config{Timeout: 500 * time.Millisecond, Cooperative: true}, policy.Env{Clock: clk})

	read := make(chan struct{}) // the call has read its deadline: time may pass
	go func() {
		<-read
		_ = clk.BlockUntil(context.Background(), 1)
		clk.Advance(500 * time.Millisecond)
	}()
	err := to.Run(context.Background(), func(ctx context.Context) error {
		d, _ := ctx.Deadline()
		fmt.Println("deadline in", d.Sub(clk.Now()))
		close(read)
		<-ctx.Done()
		return ctx.Err()
	})
	var te *timeout.CallTimeoutError
	fmt.Println(errors.As(err, &te), te.Duration(), te.Timeout())
	// Output:
	// deadline in 500ms
	// true 500ms true
}

// The caller's own cancellation is not a timeout.
func ExampleTimeout_Run_callerCancels() {
	to, _ := timeout.New(timeout.Config{Timeout: time.Hour, Cooperative: true}, policy.Env{Clock: clocktest.NewManualClock()})
	ctx, cancel := context.WithCancel(context.Background())
	err := to.Run(ctx, func(ctx context.Context) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	})
	fmt.Println(err, errors.Is(err, timeout.ErrCallTimeout), policy.CallerCancelled(ctx, err))
	// Output: context canceled false true
}

// Stage puts the timeout in a chain; the handle reads its figures.
func ExampleStage() {
	clk := clocktest.NewManualClock()
	to, _ := timeout.New(timeout.Config{Timeout: time.Second}, policy.Env{Clock: clk, Instance: "search"})
	links := []policy.Link[string]{timeout.Stage[string](to)} // made once, when a pipeline is built

	search := func(ctx context.Context) (string, error) {
		<-ctx.Done() // a dependency slower than the timeout
		return "", ctx.Err()
	}
	go func() {
		_ = clk.BlockUntil(context.Background(), 1)
		clk.Advance(time.Second)
	}()
	_, err := policy.NewNext(links, search, nil).Call(context.Background())
	fmt.Println(err)
	fmt.Printf("%+v\n", timeout.NewHandle(to).Snapshot())
	// Output:
	// r4c: call timed out after 1s (timeout search)
	// {Disabled:false Timeout:1s Cooperative:false Timeouts:1}
}
