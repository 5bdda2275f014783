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
// limit is at most 8 no call waits and the limit grows; past 8 the extra
// calls queue and latency rises in proportion, and the limit stops with a
// queue of a call or two. When the capacity falls to 4, one window cuts the
// limit straight down to the new capacity plus that small queue.
func Example_little() {
	clk := clocktest.NewManualClock()
	l, _ := adaptivelimit.New(adaptivelimit.Config{Algorithm: adaptivelimit.Little, InitialLimit: 4,
		MinWindowSamples: 1}, policy.Env{Clock: clk, Instance: "inventory"})
	h := l.Handle()
	capacity := 8
	for w := 1; w <= 16; w++ {
		if w == 12 {
			capacity = 4
		}
		// One window: every slot is used at once; the calls take 100ms, or
		// longer in proportion when more than the capacity are in flight.
		// One more call, alone, ends the window a second later.
		n := h.Limit()
		ps := make([]adaptivelimit.Permit, n)
		for i := range ps {
			ps[i], _ = l.TryAcquire()
		}
		lat := 100 * time.Millisecond * time.Duration(max(n, capacity)) / time.Duration(capacity)
		lat += time.Duration(w%3-1) * 2 * time.Millisecond // some noise
		clk.Advance(lat)
		for _, p := range ps {
			l.Release(p, adaptivelimit.OutcomeSuccess)
		}
		clk.Advance(900*time.Millisecond - lat)
		last, _ := l.TryAcquire()
		clk.Advance(100 * time.Millisecond)
		l.Release(last, adaptivelimit.OutcomeSuccess)
		fmt.Printf("window %2d: %2d calls, limit %2d\n", w, n, h.Limit())
	}
	// Output:
	// window  1:  4 calls, limit  4
	// window  2:  4 calls, limit  5
	// window  3:  5 calls, limit  6
	// window  4:  6 calls, limit  7
	// window  5:  7 calls, limit  8
	// window  6:  8 calls, limit  9
	// window  7:  9 calls, limit 10
	// window  8: 10 calls, limit 10
	// window  9: 10 calls, limit 10
	// window 10: 10 calls, limit 10
	// window 11: 10 calls, limit 10
	// window 12: 10 calls, limit  6
	// window 13:  6 calls, limit  6
	// window 14:  6 calls, limit  6
	// window 15:  6 calls, limit  6
	// window 16:  6 calls, limit  6
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
