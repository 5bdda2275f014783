package bulkhead_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
)

func ExampleBulkhead_TryAcquire() {
	b, _ := bulkhead.New(bulkhead.Config{MaxConcurrent: 2}, policy.Env{Instance: "db"})
	fmt.Println(b.TryAcquire(), b.TryAcquire(), b.TryAcquire())
	b.Release()
	fmt.Println(b.InFlight(), b.TryAcquire())
	b.Release()
	b.Release()
	// Output:
	// true true false
	// 1 true
}

// With MaxWait a call waits for a slot, first come first served; the wait
// is on the registry's clock.
func ExampleBulkhead_Acquire() {
	clk := clocktest.NewManualClock()
	b, _ := bulkhead.New(bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Second}, policy.Env{Clock: clk, Instance: "db"})
	b.TryAcquire() // the only slot is taken

	got := make(chan error)
	go func() { got <- b.Acquire(context.Background()) }()
	_ = clk.BlockUntil(context.Background(), 1) // it waits
	fmt.Println("waiting:", b.Waiting())
	b.Release() // the slot goes straight to the waiter
	fmt.Println(<-got, b.InFlight())

	go func() { got <- b.Acquire(context.Background()) }()
	_ = clk.BlockUntil(context.Background(), 1)
	clk.Advance(time.Second) // nobody gives a slot back within MaxWait
	err := <-got
	fmt.Println(errors.Is(err, bulkhead.ErrFull), errors.Is(err, policy.ErrRejected))
	b.Release()
	// Output:
	// waiting: 1
	// <nil> 1
	// true true
}

// Stage puts the bulkhead in a chain: a call that finds every slot taken is
// rejected without running, and the handle counts it.
func ExampleStage() {
	b, _ := bulkhead.New(bulkhead.Config{MaxConcurrent: 1}, policy.Env{Instance: "db"})
	links := []policy.Link[string]{bulkhead.Stage[string](b)} // made once, when a pipeline is built
	query := func(context.Context) (string, error) { return "rows", nil }

	v, err := policy.NewNext(links, query, nil).Call(context.Background())
	fmt.Println(v, err)

	b.TryAcquire() // someone else holds the slot
	_, err = policy.NewNext(links, query, nil).Call(context.Background())
	var full *bulkhead.BulkheadFullError
	fmt.Println(err)
	fmt.Println(errors.As(err, &full), full.InstanceID())
	fmt.Printf("%+v\n", bulkhead.NewHandle(b).Snapshot())
	b.Release()
	// Output:
	// rows <nil>
	// r4c: bulkhead full: 1 calls in flight (bulkhead db)
	// true db
	// {Disabled:false MaxConcurrent:1 MaxWait:0s InFlight:1 Waiting:0 Rejections:1}
}
