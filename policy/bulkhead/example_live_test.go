package bulkhead_test

import (
	"fmt"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
)

// Shrinking a bulkhead while calls run: nothing is interrupted, new calls
// are rejected until the calls in flight are below the new size.
func ExampleHandle_SetMaxConcurrent() {
	b, _ := bulkhead.New(bulkhead.Config{MaxConcurrent: 3}, policy.Env{})
	h := b.Handle()
	b.TryAcquire()
	b.TryAcquire()
	_ = h.SetMaxConcurrent(1)
	fmt.Println(h.InFlight(), b.TryAcquire())
	b.Release()
	fmt.Println(h.InFlight(), b.TryAcquire())
	b.Release()
	fmt.Println(h.InFlight(), b.TryAcquire())
	// Output:
	// 2 false
	// 1 false
	// 0 true
}
