package future_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/resilience4cata/r4c/future"
)

// The worker completes the promise; the caller waits on the future.
func ExamplePromise() {
	p := future.NewPromise[string]()
	go func() {
		p.Complete("result") // the first completion wins
	}()
	v, err := p.Future().Get(context.Background())
	fmt.Println(v, err)
	fmt.Println("again:", p.Complete("ignored"))
	// Output:
	// result <nil>
	// again: false
}

// OnComplete functions run before Get returns, so what they record is
// visible to the caller without further synchronisation.
func ExampleFuture_OnComplete() {
	p := future.NewPromise[int]()
	f := p.Future()
	recorded := "nothing"
	f.OnComplete(func(v int, err error) { recorded = fmt.Sprintf("%d, %v", v, err) })

	go p.Fail(errors.New("backend down"))
	_, err := f.Get(context.Background())
	fmt.Println("Get:", err)
	fmt.Println("recorded:", recorded)

	// Registered after completion: runs at once.
	f.OnComplete(func(int, error) { fmt.Println("late callback ran") })
	// Output:
	// Get: backend down
	// recorded: 0, backend down
	// late callback ran
}

// Cancelling a future stops the work through the promise's OnCancel
// functions; Get then returns ErrCancelled, which matches context.Canceled.
func ExampleFuture_Cancel() {
	ctx, stopWork := context.WithCancel(context.Background())
	p := future.NewPromise[string]()
	p.OnCancel(stopWork)
	workDone := make(chan struct{})
	go func() {
		defer close(workDone)
		<-ctx.Done() // the work notices its ctx is cancelled
		p.Complete("too late")
	}()

	f := p.Future()
	fmt.Println("cancelled:", f.Cancel())
	<-workDone
	_, err := f.Get(context.Background())
	fmt.Println(err)
	fmt.Println("is context.Canceled:", errors.Is(err, context.Canceled))
	fmt.Println("cancel again:", f.Cancel())
	// Output:
	// cancelled: true
	// r4c: future cancelled
	// is context.Canceled: true
	// cancel again: false
}

// Get gives up when its ctx is done; the future itself goes on.
func ExampleFuture_Get() {
	p := future.NewPromise[int]()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Future().Get(ctx)
	fmt.Println(err)

	p.Complete(42)
	v, err := p.Future().Get(context.Background())
	fmt.Println(v, err)
	// Output:
	// context canceled
	// 42 <nil>
}

// Completed and Failed make futures that are complete from the start.
func ExampleCompleted() {
	v, err := future.Completed("cached").Get(context.Background())
	fmt.Println(v, err)
	_, err = future.Failed[string](errors.New("no")).Get(context.Background())
	fmt.Println(err)
	// Output:
	// cached <nil>
	// no
}
