package breaker_test

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
	"github.com/resilience4cata/r4c/policy/breaker"
)

var (
	errBoom  = errors.New("boom")
	errLimit = errors.New("r4c: adaptive limit exceeded")
)

// rig is a breaker on a ManualClock with a recording event bus.
type rig struct {
	t     *testing.T
	clk   *clocktest.ManualClock
	bus   *events.Bus
	b     *breaker.Breaker
	h     *breaker.Handle
	st    policy.Link[string]
	mu    sync.Mutex
	evs   []events.Event
	calls atomic.Int32
}

func newRig(t *testing.T, cfg breaker.Config) *rig {
	t.Helper()
	g := &rig{t: t, clk: clocktest.NewManualClock(), bus: &events.Bus{}}
	stop := g.bus.Subscribe(func(e events.Event) {
		g.mu.Lock()
		g.evs = append(g.evs, e)
		g.mu.Unlock()
	})
	t.Cleanup(stop)
	b, err := breaker.New(cfg, policy.Env{Clock: g.clk, Events: g.bus, Instance: "db"})
	require.NoError(t, err)
	g.b, g.h, g.st = b, b.Handle(), breaker.Stage[string](b)
	return g
}

func (g *rig) events() []events.Event {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]events.Event(nil), g.evs...)
}

// changes returns the state changes published, as "from>to".
func (g *rig) changes() []string {
	var out []string
	for _, e := range g.events() {
		if c, ok := e.(events.BreakerStateChanged); ok {
			out = append(out, c.From+">"+c.To)
		}
	}
	return out
}

func (g *rig) rejections() int {
	n := 0
	for _, e := range g.events() {
		if _, ok := e.(events.CallRejected); ok {
			n++
		}
	}
	return n
}

// call runs one call through the stage that takes d on the clock and
// returns err.
func (g *rig) call(d time.Duration, err error) error {
	_, _, got := g.st.Run(context.Background(), policy.NewNext[string](nil, func(context.Context) (string, error) {
		g.calls.Add(1)
		g.clk.Advance(d)
		return "v", err
	}, nil))
	return got
}

func (g *rig) succeed(n int) {
	for range n {
		require.NoError(g.t, g.call(0, nil))
	}
}

func (g *rig) fail(n int) {
	for range n {
		require.ErrorIs(g.t, g.call(0, errBoom), errBoom)
	}
}
