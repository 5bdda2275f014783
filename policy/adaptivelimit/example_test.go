package adaptivelimit_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// The limit used on its own: take a slot, make the call, give the slot back
// with the call's outcome. On a manual clock the latency is what the clock
// moved during the call.
func Example() {
	clk := clocktest.NewManualClock()
	l, err := adaptivelimit.New(adaptivelimit.Config{InitialLimit: 2, MinWindowSamples: 1, Algorithm: adaptivelimit.AIMD},
		policy.Env{Clock: clk, Instance: "search"})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	a, _ := l.Acquire(ctx)
	b, _ := l.Acquire(ctx)
	if _, err := l.Acquire(ctx); errors.Is(err, adaptivelimit.ErrLimitExceeded) {
		fmt.Println("third call:", err)
	}
	clk.Advance(time.Second)
	l.Release(a, l.Classify(ctx, nil)) // a sample that ends the first window
	l.Release(b, l.Classify(ctx, errors.New("404")))
	s := l.Handle().Snapshot()
	fmt.Println("windows:", s.Windows, "latency:", s.WindowLatency, "limit:", s.Limit, "in flight:", s.InFlight)
	// Output:
	// third call: r4c: adaptive limit search exceeded
	// windows: 1 latency: 1s limit: 3 in flight: 0
}

// The reference page's test, with asynchronous calls: pending futures hold
// their slots, so two of them fill a limit of two.
func ExampleStage_async() {
	clk := clocktest.NewManualClock()
	l, _ := adaptivelimit.New(adaptivelimit.Config{InitialLimit: 2, MinWindowSamples: 1},
		policy.Env{Clock: clk, Instance: "orders-async"})
	chain := policy.NewChain(adaptivelimit.Stage[string](l))
	pending := map[string]*future.Promise[string]{}
	place := func(order string) *future.Future[string] {
		return chain.AsyncNext(func(context.Context) *future.Future[string] {
			pending[order] = future.NewPromise[string]()
			return pending[order].Future()
		}).Call(context.Background())
	}

	a, b, c := place("a"), place("b"), place("c")
	_, err := c.Get(context.Background())
	fmt.Println("c:", err)

	clk.Advance(time.Second) // the calls took a second: the window is over
	pending["a"].Complete("placed a")
	pending["b"].Complete("placed b")
	va, _ := a.Get(context.Background())
	vb, _ := b.Get(context.Background())
	s := l.Handle().Snapshot()
	fmt.Println(va, vb)
	fmt.Println("windows:", s.Windows, "window latency:", s.WindowLatency)
	// Output:
	// c: r4c: adaptive limit orders-async exceeded
	// placed a placed b
	// windows: 1 window latency: 1s
}

// A synchronous call through the stage. A call timeout inside the limit
// is a drop, and AIMD backs off.
func ExampleStage() {
	clk := clocktest.NewManualClock()
	bus := &events.Bus{}
	bus.Subscribe(func(e events.Event) {
		if c, ok := e.(events.LimitChanged); ok {
			fmt.Printf("limit %d -> %d (drop: %v)\n", c.OldLimit, c.NewLimit, c.Dropped)
		}
	})
	l, _ := adaptivelimit.New(adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 10, MinWindowSamples: 1},
		policy.Env{Clock: clk, Events: bus, Instance: "backend"})
	chain := policy.NewChain(adaptivelimit.Stage[string](l))
	call := func(context.Context) (string, error) {
		clk.Advance(time.Second)
		return "", fmt.Errorf("get: %w", policy.ErrCallTimeout)
	}
	_, err := chain.Next(call, nil).Call(context.Background())
	fmt.Println(err)
	// Output:
	// limit 10 -> 9 (drop: true)
	// get: r4c: call timed out
}

// Low-priority calls are shed first: with the default LowPriorityShare of
// 0.8, they may use 8 of 10 slots.
func ExampleWithPriority() {
	l, _ := adaptivelimit.New(adaptivelimit.Config{InitialLimit: 10}, policy.Env{Clock: clocktest.NewManualClock()})
	batch := adaptivelimit.WithPriority(context.Background(), adaptivelimit.PriorityLow)
	admitted := 0
	for range 10 {
		if _, err := l.Acquire(batch); err == nil {
			admitted++
		}
	}
	_, err := l.Acquire(context.Background())
	fmt.Println("low priority admitted:", admitted, "normal admitted:", err == nil)
	// Output:
	// low priority admitted: 8 normal admitted: true
}

// With MaxWait a call waits for a slot instead of failing at once.
func ExampleConfig_maxWait() {
	clk := clocktest.NewManualClock()
	l, _ := adaptivelimit.New(adaptivelimit.Config{InitialLimit: 1, MaxWait: 100 * time.Millisecond},
		policy.Env{Clock: clk})
	held, _ := l.Acquire(context.Background())
	got := make(chan error)
	go func() {
		p, err := l.Acquire(context.Background())
		l.Release(p, adaptivelimit.OutcomeSuccess)
		got <- err
	}()
	_ = clk.BlockUntil(context.Background(), 1) // the second call is waiting
	clk.Advance(40 * time.Millisecond)
	l.Release(held, adaptivelimit.OutcomeSuccess)
	fmt.Println("waited and admitted:", <-got == nil)
	// Output:
	// waited and admitted: true
}

func ExampleConfig_Validate() {
	err := adaptivelimit.Config{MinLimit: 50, MaxLimit: 10}.WithDefaults().Validate()
	var fe *policy.FieldError
	if errors.As(err, &fe) {
		fmt.Println(fe.Key, fe.Class == policy.ClassOrder, err)
	}
	// Output:
	// minLimit true minLimit=50: must not exceed maxLimit (10)
}

// Little on a dependency that serves 8 calls at once in 100ms: while the
// limit is at most 8 no call waits, past 8 the extra calls queue and every
// call takes longer in proportion. Little doubles the limit while goodput
// doubles with it, backs off to the knee when latency answers instead, and
// when the capacity falls to 4 it cuts straight to the new knee.
func Example_little() {
	clk := clocktest.NewManualClock()
	l, _ := adaptivelimit.New(adaptivelimit.Config{Algorithm: adaptivelimit.Little, InitialLimit: 2},
		policy.Env{Clock: clk, Instance: "inventory"})
	h := l.Handle()
	capacity := 8
	for s := 1; s <= 24; s++ {
		if s == 13 {
			capacity = 4
		}
		// A second of rounds: every free slot takes a call; the calls of a
		// round end together.
		for range 10 {
			n := h.Limit()
			ps := make([]adaptivelimit.Permit, n)
			for i := range ps {
				ps[i], _ = l.TryAcquire()
			}
			clk.Advance(100 * time.Millisecond * time.Duration(max(n, capacity)) / time.Duration(capacity))
			for _, p := range ps {
				l.Release(p, adaptivelimit.OutcomeSuccess)
			}
		}
		if s%3 == 0 {
			fmt.Printf("%2d s: capacity %d, limit %2d\n", s, capacity, h.Limit())
		}
	}
	// Output:
	//  3 s: capacity 8, limit  8
	//  6 s: capacity 8, limit  8
	//  9 s: capacity 8, limit  9
	// 12 s: capacity 8, limit  9
	// 15 s: capacity 4, limit  4
	// 18 s: capacity 4, limit  4
	// 21 s: capacity 4, limit  5
	// 24 s: capacity 4, limit  4
}

// The table of keys describes each flat key and reads its text into a
// Config: syntax is checked here, ranges by Validate.
func ExampleKeys() {
	keys := adaptivelimit.Keys()
	k := keys.At(keys.Index("window"))
	fmt.Println(k.Name, k.Type, k.Default, k.Valid)

	var c adaptivelimit.Config
	fmt.Println(k.Set(&c, "PT0.5S"), c.Window)
	fmt.Println(k.Set(&c, "1 sec"))
	fmt.Println(k.Set(&c, "2h"), c.WithDefaults().Validate())
	// Output:
	// window duration 1s [1ms, 1h]
	// <nil> 500ms
	// window=1 sec: white space inside a duration
	// <nil> window=2h0m0s: window out of range: must be between 1ms and 1h
}
