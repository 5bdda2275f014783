package timeout_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/internal/testkit"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/stretchr/testify/require"
)

// fixture is a timeout on a ManualClock with a recorded event bus.
type fixture struct {
	clk *clocktest.ManualClock
	t   *timeout.Timeout
	h   *timeout.Handle
	rec *recorder
}

func newFixture(tb testing.TB, cfg timeout.Config) *fixture {
	tb.Helper()
	clk := clocktest.NewManualClock()
	bus := &events.Bus{}
	rec := &recorder{}
	stop := bus.Subscribe(rec.Listen)
	tb.Cleanup(stop)
	to, err := timeout.New(cfg, policy.Env{Clock: clk, Events: bus, Instance: "search"})
	require.NoError(tb, err)
	return &fixture{clk: clk, t: to, h: timeout.NewHandle(to), rec: rec}
}

// blockUntil waits until n timers are armed on the clock.
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
	mu    sync.Mutex
	start policy.Stamp
	calls int
	end   policy.Stamp
}

func (p *probe) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	p.mu.Lock()
	p.start = next.Start
	p.calls++
	p.mu.Unlock()
	v, _, err := next.Run(ctx)
	return v, p.end, err
}

func (p *probe) RunAsync(ctx context.Context, next policy.AsyncNext[string]) *future.Future[string] {
	return next.Call(ctx)
}

func (p *probe) seen() (policy.Stamp, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.start, p.calls
}

type result struct {
	v   string
	err error
	end policy.Stamp
}

// run runs fn through links synchronously.
func run(ctx context.Context, next policy.Next[string]) result {
	v, end, err := next.Run(ctx)
	return result{v, err, end}
}

// start runs next on a goroutine and returns the channel of its result.
func start(ctx context.Context, next policy.Next[string]) <-chan result {
	ch := make(chan result, 1)
	go func() { ch <- run(ctx, next) }()
	return ch
}

func chain(fn func(context.Context) (string, error), links ...policy.Link[string]) policy.Next[string] {
	return policy.NewNext(links, fn, nil)
}

// recv waits for a result, failing the test after a while of real time (a
// guard against a hang, not a timing assumption).
// tb is what recv needs of a *testing.T or a *rapid.T.
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
		tb.Fatal("no result")
		panic("unreachable")
	}
}

// drained returns clk.Pending() once no timer is left, or after a bounded
// number of yields. When a caller's ctx is cancelled, the goroutine that
// context.AfterFunc starts finishes the ManualClock's deadline context and
// stops its timer just after marking it done, so the timer can outlive the
// call by a moment: yielding lets that goroutine end. No real time passes.
func drained(clk *clocktest.ManualClock) int {
	for i := 0; i < 100000 && clk.Pending() != 0; i++ {
		runtime.Gosched()
	}
	return clk.Pending()
}

// pending reports whether the buffered channel ch holds nothing yet.
func pending[T any](ch <-chan T) bool { return len(ch) == 0 }
