package hedge_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/hedge"
)

const delay = 100 * time.Millisecond

// attempt is one call of the backend's function, answered by the test.
type attempt struct {
	ctx   context.Context
	reply chan reply
}

type reply struct {
	v   string
	err error
}

func (a *attempt) ok(v string)     { a.reply <- reply{v: v} }
func (a *attempt) fail(err error)  { a.reply <- reply{err: err} }
func (a *attempt) cancelled() bool { return a.ctx.Err() != nil }

// backend is a fake dependency: each call waits for the test's reply or,
// unless ignoreCtx, for its ctx.
type backend struct {
	calls     chan *attempt
	ignoreCtx bool
}

func newBackend() *backend { return &backend{calls: make(chan *attempt, 32)} }

func (b *backend) fn(ctx context.Context) (string, error) {
	a := &attempt{ctx: ctx, reply: make(chan reply, 1)}
	b.calls <- a
	if b.ignoreCtx {
		r := <-a.reply
		return r.v, r.err
	}
	select {
	case r := <-a.reply:
		return r.v, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// next returns an attempt that has called the backend, failing if none has.
func (b *backend) next(t *testing.T) *attempt {
	t.Helper()
	select {
	case a := <-b.calls:
		return a
	default:
		t.Fatal("no attempt called the backend")
		return nil
	}
}

// none fails if an attempt called the backend.
func (b *backend) none(t *testing.T) {
	t.Helper()
	require.Zero(t, len(b.calls), "an attempt called the backend")
}

type outcome struct {
	v   string
	err error
}

// fixture is a hedge on a ManualClock with a bus that records events.
type fixture struct {
	clk    *clocktest.ManualClock
	h      *hedge.Hedge
	be     *backend
	events []events.Event
}

func newFixture(t *testing.T, cfg hedge.Config) *fixture {
	t.Helper()
	f := &fixture{clk: clocktest.NewManualClock(), be: newBackend()}
	bus := &events.Bus{}
	stop := bus.Subscribe(func(e events.Event) { f.events = append(f.events, e) })
	t.Cleanup(stop)
	h, err := hedge.New(cfg, policy.Env{Clock: f.clk, Events: bus, Instance: "h"})
	require.NoError(t, err)
	f.h = h
	return f
}

// run starts a synchronous call on a goroutine of its own.
func (f *fixture) run(ctx context.Context) <-chan outcome {
	done := make(chan outcome, 1)
	go func() {
		v, err := hedge.Do(ctx, f.h, f.be.fn)
		done <- outcome{v, err}
	}()
	return done
}

func (f *fixture) snap() hedge.Snapshot { return f.h.Handle().Snapshot() }

func pending[T any](t *testing.T, ch <-chan T) {
	t.Helper()
	select {
	case <-ch:
		t.Fatal("the call ended early")
	default:
	}
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	default:
		t.Fatal("the call has not ended")
		var zero T
		return zero
	}
}

// asyncBackend is a fake asynchronous dependency: each call returns the
// future of a promise the test completes.
type asyncBackend struct{ calls chan *asyncAttempt }

type asyncAttempt struct {
	ctx context.Context
	pr  *future.Promise[string]
}

func newAsyncBackend() *asyncBackend { return &asyncBackend{calls: make(chan *asyncAttempt, 32)} }

func (b *asyncBackend) fn(ctx context.Context) *future.Future[string] {
	a := &asyncAttempt{ctx: ctx, pr: future.NewPromise[string]()}
	b.calls <- a
	return a.pr.Future()
}

func (b *asyncBackend) next(t *testing.T) *asyncAttempt {
	t.Helper()
	select {
	case a := <-b.calls:
		return a
	default:
		t.Fatal("no attempt called the backend")
		return nil
	}
}

func rejection() error {
	return &policy.RejectedError{Kind: "adaptivelimit", Instance: "x", Err: errLimit}
}
