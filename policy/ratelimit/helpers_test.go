package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/internal/testkit"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/stretchr/testify/require"
)

type fixture struct {
	clk *clocktest.ManualClock
	l   *ratelimit.Limiter
	h   *ratelimit.Handle
	st  policy.Link[string]
	rec *recorder
}

func newFixture(tb testing.TB, cfg ratelimit.Config) *fixture {
	tb.Helper()
	clk := clocktest.NewManualClock()
	bus := &events.Bus{}
	rec := &recorder{}
	tb.Cleanup(bus.Subscribe(rec.Listen))
	l, err := ratelimit.New(cfg, policy.Env{Clock: clk, Events: bus, Instance: "api"})
	require.NoError(tb, err)
	return &fixture{clk: clk, l: l, h: ratelimit.NewHandle(l), st: ratelimit.Stage[string](l), rec: rec}
}

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
}

func blockUntil(t tb, clk *clocktest.ManualClock, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := clk.BlockUntil(ctx, n); err != nil {
		t.Fatal("timers armed:", clk.Pending())
	}
}

func recv[T any](t tb, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received")
		panic("unreachable")
	}
}

// recorder records the events of the instance under test.
type recorder = testkit.Events

// probe is a link inside the stage under test: it records the start
// reading it was given and returns end as its end reading (policy.NoStamp
// for none).
type probe struct {
	start policy.Stamp
	calls int
	end   policy.Stamp
}

func (p *probe) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	p.start = next.Start
	p.calls++
	v, _, err := next.Run(ctx)
	return v, p.end, err
}

func (p *probe) RunAsync(ctx context.Context, next policy.AsyncNext[string]) *future.Future[string] {
	return next.Call(ctx)
}

func ok(context.Context) (string, error) { return "ok", nil }

func (f *fixture) next(p *probe) policy.Next[string] {
	links := []policy.Link[string]{f.st}
	if p != nil {
		links = append(links, p)
	}
	return policy.NewNext(links, ok, nil)
}
