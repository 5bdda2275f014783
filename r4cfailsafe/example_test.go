package r4cfailsafe_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/r4cfailsafe"
)

// r4c's adaptive limit in a failsafe-go executor, behind failsafe-go's
// retry: the registry's instance takes the slot and measures the call, and
// its handle shows it.
func Example() {
	clk := clocktest.NewManualClock() // tests only; omit WithClock in production
	reg, err := r4c.NewRegistry(r4c.WithClock(clk),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 }))
	if err != nil {
		panic(err)
	}
	limit, err := r4cfailsafe.NewAdaptiveLimit[string](reg, "search", nil)
	if err != nil {
		panic(err)
	}
	retry := retrypolicy.NewWithDefaults[string]()

	s, err := failsafe.With[string](retry, limit).Get(func() (string, error) {
		clk.Advance(250 * time.Millisecond)
		return "results", nil
	})
	fmt.Println(s, err)
	clk.Advance(time.Second)
	_, _ = failsafe.With[string](retry, limit).Get(func() (string, error) { return "more", nil })

	h, _ := reg.AdaptiveLimit("search")
	snap := h.Snapshot()
	fmt.Println("windows", snap.Windows, "latency", snap.WindowLatency, "in flight", snap.InFlight)
	// Output:
	// results <nil>
	// windows 1 latency 125ms in flight 0
}

// A rejection by r4c's limit, as a failsafe-go caller sees it: it matches
// failsafe-go's adaptivelimiter.ErrExceeded and r4c's own errors.
func ExampleAdaptiveLimit() {
	reg, _ := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	_, _ = pipeline.NewBuilder[string](reg, "orders").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1 }).Build()
	h, _ := reg.AdaptiveLimit("orders")
	exec := failsafe.With[string](r4cfailsafe.AdaptiveLimit[string](h))

	_, err := exec.Get(func() (string, error) {
		_, inner := exec.Get(func() (string, error) { return "", nil }) // the one slot is taken
		return "", inner
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, adaptivelimiter.ErrExceeded), errors.Is(err, adaptivelimit.ErrLimitExceeded),
		errors.Is(err, policy.ErrRejected))
	// Output:
	// r4c: adaptive limit orders exceeded
	// true true true
}

// failsafe-go's circuit breaker inside an r4c pipeline: it opens on
// failsafe-go's rules, and its rejection is an r4c rejection.
func ExampleWrap() {
	reg, _ := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	cb := circuitbreaker.NewBuilder[string]().WithFailureThreshold(2).Build()
	p, err := pipeline.NewBuilder[string](reg, "payments").
		AdaptiveLimit(nil).
		Use(r4cfailsafe.Wrap("payments", cb)).
		Build()
	if err != nil {
		panic(err)
	}
	declined := errors.New("declined")
	for range 3 {
		_, err = p.Execute(func() (string, error) { return "", declined })
		fmt.Println(err)
	}
	var re *policy.RejectedError
	fmt.Println(errors.Is(err, policy.ErrRejected), errors.Is(err, circuitbreaker.ErrOpen), errors.As(err, &re) && re.Kind == r4cfailsafe.KindCircuitBreaker)
	// Output:
	// declined
	// declined
	// r4c: failsafe-go/circuitbreaker payments rejected the call: circuit breaker open
	// true true true
}
