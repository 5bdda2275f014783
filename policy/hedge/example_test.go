package hedge_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/hedge"
)

// A replica that hangs is hedged after the delay: the second attempt
// answers, and the first one's ctx is cancelled.
func Example() {
	clk := clocktest.NewManualClock()
	bus := &events.Bus{}
	stop := bus.Subscribe(func(e events.Event) {
		if e, ok := e.(events.HedgeStarted); ok {
			fmt.Printf("%s: attempt %d started\n", e.Instance, e.Attempt)
		}
	})
	defer stop()
	h, err := hedge.New(hedge.Config{Delay: 50 * time.Millisecond}, policy.Env{Clock: clk, Events: bus, Instance: "search"})
	if err != nil {
		fmt.Println(err)
		return
	}

	firstIn := make(chan struct{})
	var calls atomic.Int32
	replica := func(ctx context.Context) (string, error) {
		if calls.Add(1) == 1 {
			close(firstIn)
			<-ctx.Done() // stuck until the hedge gives up on it
			return "", ctx.Err()
		}
		return "answer from the second replica", nil
	}
	go func() {
		<-firstIn
		_ = clk.BlockUntil(context.Background(), 1) // the hedge waits for its delay
		clk.Advance(50 * time.Millisecond)
	}()

	v, err := hedge.Do(context.Background(), h, replica)
	fmt.Println(v, err)
	s := h.Handle().Snapshot()
	fmt.Printf("calls %d, hedges %d, won by a hedge %d\n", s.Calls, s.HedgesStarted, s.HedgeWins)
	// Output:
	// search: attempt 2 started
	// answer from the second replica <nil>
	// calls 1, hedges 1, won by a hedge 1
}

// A fast first attempt starts no hedge at all.
func ExampleStage() {
	clk := clocktest.NewManualClock()
	h, _ := hedge.New(hedge.Config{Delay: time.Second, MaxHedged: 2}, policy.Env{Clock: clk})
	stage := hedge.Stage[int](h) // made once, when a pipeline is built

	next := policy.NewNext[int](nil, func(context.Context) (int, error) { return 42, nil }, nil)
	v, _, err := stage.Run(context.Background(), next)
	fmt.Println(v, err, h.Handle().Snapshot().HedgesStarted)
	// Output: 42 <nil> 0
}

func ExampleConfig_Validate() {
	err := hedge.Config{MaxHedged: 20}.WithDefaults().Validate()
	fmt.Println(err)
	// Output: maxHedged=20: must be at most 10
}
