package retry_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/retry"
)

var (
	errBoom  = errors.New("boom")
	errFatal = errors.New("fatal")
)

// rig is a retry on a ManualClock with a recording event bus.
type rig struct {
	t     *testing.T
	clk   *clocktest.ManualClock
	bus   *events.Bus
	r     *retry.Retry
	mu    sync.Mutex
	evs   []events.Event
	calls atomic.Int32
}

func newRig(t *testing.T, cfg retry.Config) *rig {
	t.Helper()
	g := &rig{t: t, clk: clocktest.NewManualClock(), bus: &events.Bus{}}
	stop := g.bus.Subscribe(func(e events.Event) {
		g.mu.Lock()
		g.evs = append(g.evs, e)
		g.mu.Unlock()
	})
	t.Cleanup(stop)
	r, err := retry.New(cfg, policy.Env{Clock: g.clk, Events: g.bus, Instance: "svc"})
	require.NoError(t, err)
	g.r = r
	return g
}

func (g *rig) events() []events.Event {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]events.Event(nil), g.evs...)
}

func (g *rig) attempts() []events.RetryAttempt {
	var out []events.RetryAttempt
	for _, e := range g.events() {
		if a, ok := e.(events.RetryAttempt); ok {
			out = append(out, a)
		}
	}
	return out
}

// script returns a function whose i-th call returns outs[i] (the last one
// again once they run out), counting calls in g.calls.
func (g *rig) script(outs ...out) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		i := int(g.calls.Add(1)) - 1
		if i >= len(outs) {
			i = len(outs) - 1
		}
		return outs[i].v, outs[i].err
	}
}

type out struct {
	v   string
	err error
}

func ok(v string) out    { return out{v: v} }
func fail(err error) out { return out{err: err} }
func failv(v string) out { return out{v: v, err: errBoom} }

// run calls fn through the retry's stage synchronously.
func (g *rig) run(ctx context.Context, fn func(context.Context) (string, error)) (string, policy.Stamp, error) {
	return retry.Stage[string](g.r).Run(ctx, policy.NewNext[string](nil, fn, nil))
}

type result struct {
	v     string
	err   error
	stamp policy.Stamp
}

// start runs the call on a goroutine; the result arrives on the channel.
func (g *rig) start(ctx context.Context, fn func(context.Context) (string, error)) <-chan result {
	ch := make(chan result, 1)
	go func() {
		v, s, err := g.run(ctx, fn)
		ch <- result{v, err, s}
	}()
	return ch
}

// waitTimers blocks until n timers are armed on the clock.
func (g *rig) waitTimers(n int) {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(g.t, g.clk.BlockUntil(ctx, n), "no goroutine reached its wait")
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("timed out waiting for a result")
		panic("unreachable")
	}
}

// constant returns a Rand that always returns x.
func constant(x float64) func() float64 { return func() float64 { return x } }

// sequence returns a Rand that returns xs in turn, then the last forever.
func sequence(xs ...float64) func() float64 {
	var mu sync.Mutex
	i := 0
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		x := xs[min(i, len(xs)-1)]
		i++
		return x
	}
}
