package retry_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/retry"
)

// A call that fails twice, retried with exponential backoff on a
// ManualClock: the test moves the clock once the retry is waiting.
func Example() {
	clk := clocktest.NewManualClock()
	r, err := retry.New(retry.Config{MaxAttempts: 3, Wait: time.Second, Multiplier: 2}, policy.Env{Clock: clk})
	if err != nil {
		panic(err)
	}
	calls := 0
	done := make(chan error)
	go func() {
		done <- r.Do(context.Background(), func(context.Context) error {
			calls++
			fmt.Printf("attempt %d at +%v\n", calls, clk.Now().Sub(clocktest.Start))
			if calls < 3 {
				return errors.New("unavailable")
			}
			return nil
		})
	}()
	for _, wait := range []time.Duration{time.Second, 2 * time.Second} {
		clk.BlockUntil(context.Background(), 1) // the retry is waiting
		clk.Advance(wait)
	}
	fmt.Println("error:", <-done)
	// Output:
	// attempt 1 at +0s
	// attempt 2 at +1s
	// attempt 3 at +3s
	// error: <nil>
}

var errNotFound = errors.New("not found")

// Errors listed in AbortOn come back at once and unchanged; the others are
// retried, and when the retry gives up it says so and keeps the last error.
func ExampleExhaustedError() {
	clk := clocktest.NewManualClock()
	bus := &events.Bus{}
	stop := bus.Subscribe(func(e events.Event) {
		if a, ok := e.(events.RetryAttempt); ok {
			fmt.Printf("retry: attempt %d in %v after %q\n", a.Attempt, a.Wait, a.Err)
		}
	})
	defer stop()
	r, _ := retry.New(retry.Config{
		MaxAttempts: 2,
		AbortOn:     []error{errNotFound},
		Jitter:      retry.JitterFull,
		Rand:        func() float64 { return 0 }, // no wait, for the example
	}, policy.Env{Clock: clk, Events: bus, Instance: "inventory"})

	err := r.Do(context.Background(), func(context.Context) error { return errNotFound })
	fmt.Println(err, errors.Is(err, retry.ErrExhausted))

	err = r.Do(context.Background(), func(context.Context) error { return errors.New("timeout") })
	var ex *retry.ExhaustedError
	if errors.As(err, &ex) {
		fmt.Println(ex.Attempts, ex.Last, errors.Is(err, retry.ErrExhausted))
	}
	fmt.Println(err)
	// Output:
	// not found false
	// retry: attempt 2 in 0s after "timeout"
	// 2 timeout true
	// r4c: retry inventory gave up after 2 attempts: timeout
}

// A retry budget caps retries at a share of the calls: here 10% of the
// calls of the last 10 seconds, plus 2. The first call spends the two
// retries; the next ones get none until the window has moved on.
func ExampleConfig_budget() {
	clk := clocktest.NewManualClock()
	r, _ := retry.New(retry.Config{
		MaxAttempts:      3,
		BudgetRatio:      0.1,
		BudgetMinRetries: 2,
		Jitter:           retry.JitterFull,
		Rand:             func() float64 { return 0 },
	}, policy.Env{Clock: clk})
	down := func(context.Context) error { return errors.New("down") }
	for i := 1; i <= 3; i++ {
		err := r.Do(context.Background(), down)
		fmt.Printf("call %d: budget exhausted: %v\n", i, errors.Is(err, retry.ErrBudgetExhausted))
	}
	s := r.Handle().Snapshot()
	fmt.Println("retries:", s.Retries, "available:", s.BudgetAvailable)
	clk.Advance(10 * time.Second)
	fmt.Println("ten seconds later:", r.Handle().Snapshot().BudgetAvailable)
	// Output:
	// call 1: budget exhausted: false
	// call 2: budget exhausted: true
	// call 3: budget exhausted: true
	// retries: 2 available: 0
	// ten seconds later: 2
}

// SetZero sets a key back to zero over a lower layer: here, a retry
// without wait, where a zero Wait alone would mean "the default, 500ms".
func ExampleConfig_SetZero() {
	var c retry.Config
	fmt.Println(c.WithDefaults().Wait)
	c.SetZero("wait")
	fmt.Println(c.WithDefaults().Wait)

	var bad retry.Config
	bad.SetZero("wiat")
	fmt.Println(bad.Validate())
	// Output:
	// 500ms
	// 0s
	// SetZero("wiat"): no such key; SetZero takes the flat key names of docs/configuration.md (did you mean "wait"?)
}
