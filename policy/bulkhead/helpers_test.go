package bulkhead_test

import (
	"context"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/internal/testkit"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/stretchr/testify/require"
)

type fixture struct {
	clk *clocktest.ManualClock
	b   *bulkhead.Bulkhead
	h   *bulkhead.Handle
	st  policy.Link[string]
	rec *recorder
}

func newFixture(tb testing.TB, cfg bulkhead.Config) *fixture {
	tb.Helper()
	clk := clocktest.NewManualClock()
	bus := &events.Bus{}
	rec := &recorder{}
	tb.Cleanup(bus.Subscribe(rec.Listen))
	b, err := bulkhead.New(cfg, policy.Env{Clock: clk, Events: bus, Instance: "db"})
	require.NoError(tb, err)
	return &fixture{clk: clk, b: b, h: bulkhead.NewHandle(b), st: bulkhead.Stage[string](b), rec: rec}
}

func (f *fixture) blockUntil(tb testing.TB, n int) {
	tb.Helper()
	testkit.BlockUntil(tb, f.clk, n)
}

// recorder records the events of the instance under test.
type recorder = testkit.Events

// probe is a link inside the stage under test: it records the start
// reading it was given and returns end as its end reading (policy.NoStamp
// for none).
type probe struct {
	start policy.Stamp
	end   policy.Stamp
}

func (p *probe) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	p.start = next.Start
	v, _, err := next.Run(ctx)
	return v, p.end, err
}

func (p *probe) RunAsync(ctx context.Context, next policy.AsyncNext[string]) *future.Future[string] {
	return next.Call(ctx)
}

// actor is a call through a stage on a goroutine of its own. Its function
// signals entered, then waits to be told to return or panic.
type actor struct {
	id      int
	ctx     context.Context
	cancel  context.CancelFunc
	entered chan struct{}
	release chan bool // true: panic
	result  chan outcome
}

type outcome struct {
	err      error
	panicked bool
}

func launch(st policy.Link[string], id int) *actor {
	ctx, cancel := context.WithCancel(context.Background())
	a := &actor{id: id, ctx: ctx, cancel: cancel, entered: make(chan struct{}), release: make(chan bool, 1), result: make(chan outcome, 1)}
	next := policy.NewNext([]policy.Link[string]{st}, func(context.Context) (string, error) {
		close(a.entered)
		if <-a.release {
			panic("kaboom")
		}
		return "ok", nil
	}, nil)
	go func() {
		var o outcome
		defer func() {
			if recover() != nil {
				o.panicked = true
			}
			a.result <- o
		}()
		_, _, o.err = next.Run(ctx)
	}()
	return a
}

// finish tells a's function to return (or panic) and waits for its outcome.
func (a *actor) finish(tb tb, panics bool) outcome {
	tb.Helper()
	a.release <- panics
	o := recv(tb, a.result)
	a.cancel()
	return o
}

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
}

func recv[T any](tb tb, ch <-chan T) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		tb.Fatal("nothing received")
		panic("unreachable")
	}
}
