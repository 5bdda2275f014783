package r4c_test

import (
	"fmt"
	"log"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/pipeline"
)

// Reload applies what changed in the sources to the running instances, and
// refuses, changing nothing, a reload with a key that cannot change live.
func ExampleRegistry_Reload() {
	props := map[string]string{"instances.orders.rateLimit.limit": "100"}
	reg, err := r4c.NewRegistry(r4c.WithProperties(props))
	if err != nil {
		log.Fatal(err)
	}
	reg.Events().Subscribe(func(e events.Event) {
		if c, ok := e.(events.ConfigChanged); ok {
			fmt.Println(c.Policy, c.Instance, c.Changes)
		}
	})
	if _, err := pipeline.NewBuilder[string](reg, "orders").RateLimit(nil).Bulkhead(nil).Build(); err != nil {
		log.Fatal(err)
	}

	props["instances.orders.rateLimit.limit"] = "20" // as if the file changed
	fmt.Println(reg.Reload())

	props["instances.orders.bulkhead.maxWait"] = "1s"
	fmt.Println(reg.Reload())
	h, _ := reg.RateLimit("orders")
	fmt.Println(h.Config().Limit)
	// Output:
	// ratelimit orders [{limit 100 20} {burst 100 20}]
	// <nil>
	// R4C-REG-011 instances.orders.bulkhead.maxWait=1s: maxWait of running bulkhead instance orders cannot change without a restart (it is 0s, the reload gives 1s); the keys marked live in docs/configuration.md can
	// 20
}

// A watcher polls the sources on the registry's clock: here a manual
// clock, advanced by hand, and Poll, which checks once on the calling
// goroutine.
func ExampleWatcher() {
	props := map[string]string{"instances.db.bulkhead.maxConcurrent": "10"}
	reg, _ := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()), r4c.WithProperties(props))
	pipeline.NewBuilder[string](reg, "db").Bulkhead(nil).Build()
	w, err := reg.NewWatcher(5*time.Second, func(err error) { fmt.Println("reload failed:", err) })
	if err != nil {
		log.Fatal(err)
	}
	defer w.Stop()

	props["instances.db.bulkhead.maxConcurrent"] = "4"
	fmt.Println(w.Poll())
	fmt.Println(w.Poll()) // nothing changed since
	props["instances.db.bulkhead.maxConcurrent"] = "0"
	_, _ = w.Poll()
	h, _ := reg.Bulkhead("db")
	fmt.Println(h.MaxConcurrent())
	// Output:
	// true <nil>
	// false <nil>
	// reload failed: R4C-ATR-003 instances.db.bulkhead.maxConcurrent=0: must be at least 1
	// 4
}
