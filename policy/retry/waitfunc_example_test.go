package retry_test

import (
	"context"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/retry"
)

// busyError is a refusal that says how long to wait, as a rate limiter's
// or a server's Retry-After does.
type busyError struct{ wait time.Duration }

func (e busyError) Error() string             { return "busy" }
func (e busyError) RetryAfter() time.Duration { return e.wait }

// WaitFunc chooses each wait from the error of the failed attempt;
// RetryAfterWait waits what the error asks for when that is longer than
// the backoff.
func ExampleRetryAfterWait() {
	clk := clocktest.NewManualClock()
	r, err := retry.New(retry.Config{
		Wait:     100 * time.Millisecond,
		WaitFunc: retry.RetryAfterWait,
	}, policy.Env{Clock: clk})
	if err != nil {
		fmt.Println(err)
		return
	}
	start := clk.Now()
	done := make(chan error)
	n := 0
	go func() {
		done <- r.Do(context.Background(), func(context.Context) error {
			n++
			if n == 1 {
				return busyError{wait: 3 * time.Second}
			}
			return nil
		})
	}()
	_ = clk.BlockUntil(context.Background(), 1) // the retry waits
	clk.Advance(3 * time.Second)
	fmt.Println(<-done, n, clk.Now().Sub(start))
	// Output: <nil> 2 3s
}
