package ratelimit_test

import (
	"fmt"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// Changing the rate of a running limiter: the next permit comes at the new
// rate, and a bad value is refused with the rule it breaks.
func ExampleHandle_SetLimit() {
	clk := clocktest.NewManualClock()
	l, _ := ratelimit.New(ratelimit.Config{Limit: 10, Period: time.Second, Burst: 1}, policy.Env{Clock: clk})
	h := l.Handle()
	fmt.Println(l.Allow(), l.RetryAfter())
	_ = h.SetLimit(2) // one permit per 500ms
	fmt.Println(l.RetryAfter())
	fmt.Println(h.SetLimit(0))
	// Output:
	// true 100ms
	// 500ms
	// limit=0: must be at least 1
}
