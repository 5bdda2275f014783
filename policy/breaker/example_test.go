package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/breaker"
)

// A breaker opens when half of the last four calls failed, refuses calls
// for 30 seconds, then closes again after two good trial calls. The
// ManualClock decides when OpenFor has passed.
func Example() {
	clk := clocktest.NewManualClock()
	bus := &events.Bus{}
	stop := bus.Subscribe(func(e events.Event) {
		if c, ok := e.(events.BreakerStateChanged); ok {
			fmt.Printf("  %s: %s -> %s\n", c.Instance, c.From, c.To)
		}
	})
	defer stop()
	b, err := breaker.New(breaker.Config{
		WindowSize:    4,
		MinimumCalls:  4,
		OpenFor:       30 * time.Second,
		HalfOpenCalls: 2,
	}, policy.Env{Clock: clk, Events: bus, Instance: "payments"})
	if err != nil {
		panic(err)
	}
	call := func(fail bool) {
		err := b.Do(context.Background(), func(context.Context) error {
			if fail {
				return errors.New("503")
			}
			return nil
		})
		fmt.Printf("call at +%v: %v\n", clk.Now().Sub(clocktest.Start), err)
	}

	call(false)
	call(true)
	call(false)
	call(true) // 2 of 4 failed: open
	call(false)
	clk.Advance(30 * time.Second)
	call(false) // a trial
	call(false) // the last trial: closed
	// Output:
	// call at +0s: <nil>
	// call at +0s: 503
	// call at +0s: <nil>
	//   payments: closed -> open
	// call at +0s: 503
	// call at +0s: r4c: circuit breaker payments is open
	//   payments: open -> half-open
	// call at +30s: <nil>
	//   payments: half-open -> closed
	// call at +30s: <nil>
}

// Slow calls open a breaker too: here when all of the last three calls took
// longer than a second. The work moves the ManualClock to take its time.
func Example_slowCalls() {
	clk := clocktest.NewManualClock()
	b, _ := breaker.New(breaker.Config{
		WindowSize:       3,
		MinimumCalls:     3,
		SlowCallDuration: time.Second,
	}, policy.Env{Clock: clk})
	for _, took := range []time.Duration{2 * time.Second, 1500 * time.Millisecond, 3 * time.Second} {
		b.Do(context.Background(), func(context.Context) error {
			clk.Advance(took)
			return nil
		})
	}
	s := b.Handle().Snapshot()
	fmt.Println(s.State, s.Calls)
	// Output:
	// open 3
}

// Errors listed in IgnoreOn count as neither success nor failure, and
// RecordOn narrows what counts as a failure.
func ExampleConfig_classification() {
	errNotFound := errors.New("not found")
	errUnavailable := errors.New("unavailable")
	b, _ := breaker.New(breaker.Config{
		WindowSize:   10,
		MinimumCalls: 10,
		RecordOn:     []error{errUnavailable},
		IgnoreOn:     []error{policy.ErrRejected}, // a full limit inside: not the dependency's fault
	}, policy.Env{Clock: clocktest.NewManualClock()})
	for _, err := range []error{nil, errNotFound, errUnavailable, &policy.RejectedError{Kind: "adaptivelimit", Err: errors.New("full")}} {
		b.Do(context.Background(), func(context.Context) error { return err })
	}
	s := b.Handle().Snapshot()
	fmt.Println("buffered:", s.BufferedCalls, "failures:", s.Failures)
	// Output:
	// buffered: 3 failures: 1
}

// The two-step form serves callers that cannot pass a function: ask with
// Allow, and hand the permit back to Record with the outcome.
func ExampleBreaker_Allow() {
	b, _ := breaker.New(breaker.Config{}, policy.Env{Clock: clocktest.NewManualClock()})
	b.TransitionToForcedOpen()
	_, err := b.Allow() // no permit: the breaker is forced open
	if err != nil {
		var oe *breaker.OpenError
		fmt.Println(errors.As(err, &oe), oe.State(), errors.Is(err, policy.ErrRejected))
	}
	b.TransitionToClosed()
	p, err := b.Allow()
	fmt.Println(err)
	b.Record(context.Background(), p, nil)
	fmt.Println(b.Handle().Snapshot().Calls)
	// Output:
	// true forced-open true
	// <nil>
	// 1
}
