package adaptivelimit_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// fixture is a limiter on a manual clock with its events recorded.
type fixture struct {
	t   testing.TB
	clk *clocktest.ManualClock
	bus *events.Bus
	l   *adaptivelimit.Limiter
	h   *adaptivelimit.Handle
	log *eventLog
}

func newFixture(t testing.TB, cfg adaptivelimit.Config) *fixture {
	t.Helper()
	clk := clocktest.NewManualClock()
	bus := &events.Bus{}
	log := &eventLog{}
	stop := bus.Subscribe(log.add)
	t.Cleanup(stop)
	l, err := adaptivelimit.New(cfg, policy.Env{Clock: clk, Events: bus, Instance: "backend"})
	require.NoError(t, err)
	return &fixture{t: t, clk: clk, bus: bus, l: l, h: l.Handle(), log: log}
}

type eventLog struct {
	mu  sync.Mutex
	evs []events.Event
}

func (g *eventLog) add(e events.Event) {
	g.mu.Lock()
	g.evs = append(g.evs, e)
	g.mu.Unlock()
}

func (g *eventLog) all() []events.Event {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]events.Event(nil), g.evs...)
}

func (g *eventLog) changes() []events.LimitChanged {
	var out []events.LimitChanged
	for _, e := range g.all() {
		if c, ok := e.(events.LimitChanged); ok {
			out = append(out, c)
		}
	}
	return out
}

func (g *eventLog) rejections() []events.CallRejected {
	var out []events.CallRejected
	for _, e := range g.all() {
		if c, ok := e.(events.CallRejected); ok {
			out = append(out, c)
		}
	}
	return out
}

// run calls fn through the limit's stage, synchronously.
func (f *fixture) run(ctx context.Context, fn func(context.Context) (string, error)) (string, error) {
	return policy.NewChain(adaptivelimit.Stage[string](f.l)).Next(fn, nil).Call(ctx)
}

// runAsync starts fn through the limit's stage, asynchronously.
func (f *fixture) runAsync(ctx context.Context, fn func(context.Context) *future.Future[string]) *future.Future[string] {
	return policy.NewChain(adaptivelimit.Stage[string](f.l)).AsyncNext(fn).Call(ctx)
}

// slow returns a function that takes d on the manual clock and then
// returns err.
func (f *fixture) slow(d time.Duration, err error) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		f.clk.Advance(d)
		if err != nil {
			return "", err
		}
		return "ok", nil
	}
}

// acquire takes n slots with TryAcquire, failing the test if one is refused.
func (f *fixture) acquire(n int) []adaptivelimit.Permit {
	f.t.Helper()
	ps := make([]adaptivelimit.Permit, n)
	for i := range ps {
		p, ok := f.l.TryAcquire()
		require.True(f.t, ok, "slot %d of %d refused (limit %d, in flight %d)", i+1, n, f.h.Limit(), f.h.InFlight())
		ps[i] = p
	}
	return ps
}

func (f *fixture) releaseAll(ps []adaptivelimit.Permit, o adaptivelimit.Outcome) {
	for _, p := range ps {
		f.l.Release(p, o)
	}
}

// elapsed returns how long the manual clock has run since the fixture was made.
func (f *fixture) elapsed() time.Duration { return f.clk.Now().Sub(clocktest.Start) }

// advanceTo moves the manual clock to d after its start.
func (f *fixture) advanceTo(d time.Duration) {
	f.t.Helper()
	require.GreaterOrEqual(f.t, d, f.elapsed(), "the clock cannot go back")
	f.clk.Advance(d - f.elapsed())
}

// windowSpec describes one window driven by driveWindow.
type windowSpec struct {
	concurrent int           // calls taken together at the window's start
	latency    time.Duration // latency of every sample, at most half the window
	drops      int           // how many of the concurrent calls end as drops
}

// driveWindow runs one window of length win that starts now (the previous
// one ended now): it takes spec.concurrent slots at once, ends them all
// after spec.latency (spec.drops of them as drops), then at win-latency
// takes one more slot and ends it at win, which ends the window. The window
// then has concurrent+1 samples, all of the same latency, and its most
// calls in flight is max(concurrent, 1) plus the calls already held.
func (f *fixture) driveWindow(win time.Duration, spec windowSpec) {
	f.t.Helper()
	require.LessOrEqual(f.t, 2*spec.latency, win)
	start := f.elapsed()
	ps := f.acquire(spec.concurrent)
	f.advanceTo(start + spec.latency)
	for i, p := range ps {
		o := adaptivelimit.OutcomeSuccess
		if i < spec.drops {
			o = adaptivelimit.OutcomeDrop
		}
		f.l.Release(p, o)
	}
	f.advanceTo(start + win - spec.latency)
	last := f.acquire(1)
	f.advanceTo(start + win)
	f.l.Release(last[0], adaptivelimit.OutcomeSuccess)
}

type (
	futureString = future.Future[string]
	promise      = future.Promise[string]
)

func newPromise() *promise             { return future.NewPromise[string]() }
func completed(v string) *futureString { return future.Completed(v) }
func failed(err error) *futureString   { return future.Failed[string](err) }
func asyncOf(f *futureString) func(context.Context) *futureString {
	return func(context.Context) *futureString { return f }
}

// probeLink is a stage placed inside the limit: it records the start
// reading it was given and returns the end reading it is told to (set end
// to policy.NoStamp for none: the zero Stamp is a reading).
type probeLink struct {
	start policy.Stamp
	end   policy.Stamp
}

func (p *probeLink) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	p.start = next.Start
	v, _, err := next.Run(ctx)
	return v, p.end, err
}

func (p *probeLink) RunAsync(ctx context.Context, next policy.AsyncNext[string]) *futureString {
	return next.Call(ctx)
}

// outerLink is a stage placed outside the limit: it passes a start reading
// inward (none if start is policy.NoStamp) and records the end reading it
// got back.
type outerLink struct {
	start policy.Stamp
	got   policy.Stamp
}

func (o *outerLink) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	if o.start.OK() {
		next = next.WithStart(o.start.At())
	}
	v, end, err := next.Run(ctx)
	o.got = end
	return v, end, err
}

func (o *outerLink) RunAsync(ctx context.Context, next policy.AsyncNext[string]) *futureString {
	return next.Call(ctx)
}

type futureInt = future.Future[int]

func newIntPromise() *future.Promise[int] { return future.NewPromise[int]() }
