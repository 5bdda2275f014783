package policy_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// A custom policy is a Policy; Wrap makes it a stage of a chain. Next is
// callable again, so a policy can retry.
func ExampleWrap() {
	attempts := 0
	retryOnce := policy.Func[string](func(ctx context.Context, next policy.Next[string]) (string, error) {
		v, err := next.Call(ctx)
		if err != nil {
			fmt.Println("retrying after:", err)
			return next.Call(ctx)
		}
		return v, nil
	})
	links := []policy.Link[string]{policy.Wrap[string](retryOnce)}
	next := policy.NewNext(links, func(ctx context.Context) (string, error) {
		attempts++
		if attempts == 1 {
			return "", fmt.Errorf("attempt %d failed", attempts)
		}
		return fmt.Sprintf("ok on attempt %d", attempts), nil
	}, nil)
	fmt.Println(next.Call(context.Background()))
	// Output:
	// retrying after: attempt 1 failed
	// ok on attempt 2 <nil>
}

// Sleep waits on the policy's clock; on a ManualClock the test decides when
// the wait is over.
func ExampleSleep() {
	clk := clocktest.NewManualClock()
	done := make(chan error)
	go func() { done <- policy.Sleep(context.Background(), clk, 250*time.Millisecond) }()

	_ = clk.BlockUntil(context.Background(), 1) // the goroutine is waiting
	clk.Advance(250 * time.Millisecond)
	fmt.Println("slept:", <-done, "at +", time.Duration(clk.Nanotime()))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fmt.Println("cancelled:", policy.Sleep(ctx, clk, time.Hour))
	// Output:
	// slept: <nil> at + 250ms
	// cancelled: context canceled
}

// Every rejection matches ErrRejected, and errors.As tells who refused.
func ExampleRejectedError() {
	var err error = &policy.RejectedError{Kind: "bulkhead", Instance: "db", Err: policy.ErrBulkheadFull}
	err = fmt.Errorf("query: %w", err)

	var rej *policy.RejectedError
	if errors.As(err, &rej) {
		fmt.Println(rej.Kind, rej.InstanceID())
	}
	fmt.Println(errors.Is(err, policy.ErrRejected), errors.Is(err, policy.ErrBulkheadFull))
	// Output:
	// bulkhead db
	// true true
}

// A stage that holds a slot for an asynchronous call frees it when the
// inner future completes, before the future it returned completes, even if
// a function on the inner future panics.
func ExampleForward() {
	inUse := 1 // a slot the call holds
	work := future.NewPromise[string]()
	work.Future().OnComplete(func(string, error) { panic("the user's callback") })

	f := policy.Forward(work.Future(), func(o policy.Outcome[string]) policy.Outcome[string] {
		inUse-- // the stage's bookkeeping
		return o
	})

	func() {
		defer func() { fmt.Println("panic goes on:", recover()) }()
		work.Complete("done")
	}()
	v, err := f.Get(context.Background())
	fmt.Println(inUse, v, err)
	// Output:
	// panic goes on: the user's callback
	// 0 done <nil>
}
