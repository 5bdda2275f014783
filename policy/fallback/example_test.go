package fallback_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/fallback"
)

var errUnavailable = errors.New("recommendations unavailable")

// A failing call returns the fallback value instead.
func Example() {
	bus := &events.Bus{}
	stop := bus.Subscribe(func(e events.Event) {
		if e, ok := e.(events.FallbackUsed); ok {
			fmt.Printf("%s handled: %v\n", e.Instance, e.Err)
		}
	})
	defer stop()

	var cfg fallback.Config
	fallback.Return([]string{"bestsellers"})(&cfg)
	f, err := fallback.New(cfg, policy.Env{Events: bus, Instance: "recs"})
	if err != nil {
		fmt.Println(err)
		return
	}
	recs, err := fallback.Do(context.Background(), f, func(context.Context) ([]string, error) {
		return nil, errUnavailable
	})
	fmt.Println(recs, err)
	fmt.Printf("%+v\n", f.Handle().Snapshot())
	// Output:
	// recs handled: recommendations unavailable
	// [bestsellers] <nil>
	// {Disabled:false Calls:1 Handled:1 FuncFailures:0}
}

// A function gets the error and decides what to return; errors not listed
// in HandleOn pass unchanged.
func ExampleCall() {
	cfg := fallback.Config{HandleOn: []error{errUnavailable}}
	fallback.Call(func(ctx context.Context, err error) (string, error) {
		return "stale copy (" + err.Error() + ")", nil
	})(&cfg)
	f, _ := fallback.New(cfg, policy.Env{})
	stage, _ := fallback.Stage[string](f) // made once, when a pipeline is built

	for _, callErr := range []error{errUnavailable, errors.New("bad request")} {
		next := policy.NewNext[string](nil, func(context.Context) (string, error) { return "", callErr }, nil)
		v, _, err := stage.Run(context.Background(), next)
		fmt.Printf("%q %v\n", v, err)
	}
	// Output:
	// "stale copy (recommendations unavailable)" <nil>
	// "" bad request
}

// A Value that is not of the pipeline's type is refused when the stage is
// built.
func ExampleStage() {
	f, _ := fallback.New(fallback.Config{Value: 404}, policy.Env{})
	_, err := fallback.Stage[string](f)
	fmt.Println(err)
	// Output: value=int: must be a string, the pipeline's result type
}
