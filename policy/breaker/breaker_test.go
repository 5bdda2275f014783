package breaker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/breaker"
)

func small() breaker.Config {
	return breaker.Config{WindowSize: 10, MinimumCalls: 5, OpenFor: 10 * time.Second, HalfOpenCalls: 3}
}

func TestClosedAdmits(t *testing.T) {
	g := newRig(t, small())
	g.succeed(20)
	assert.Equal(t, breaker.StateClosed, g.h.State())
	assert.Empty(t, g.events(), "admitted calls publish nothing")
	s := g.h.Snapshot()
	assert.Equal(t, breaker.Snapshot{State: breaker.StateClosed, BufferedCalls: 10, Calls: 20}, s)
}

func TestOpensAtTheFailureRate(t *testing.T) {
	g := newRig(t, small())
	g.fail(4)
	assert.Equal(t, breaker.StateClosed, g.h.State(), "4 calls: fewer than MinimumCalls")
	assert.Equal(t, -1.0, g.h.Snapshot().FailureRate)
	g.succeed(1) // the fifth call: 4 of 5 failed
	assert.Equal(t, breaker.StateOpen, g.h.State())
	assert.Equal(t, []string{"closed>open"}, g.changes())

	err := g.call(0, nil)
	assert.EqualValues(t, 5, g.calls.Load(), "a refused call does not run")
	var oe *breaker.OpenError
	require.ErrorAs(t, err, &oe)
	assert.ErrorIs(t, err, breaker.ErrOpen)
	assert.ErrorIs(t, err, policy.ErrRejected)
	assert.Equal(t, "db", oe.InstanceID())
	assert.Equal(t, breaker.StateOpen, oe.State())
	assert.Equal(t, "r4c: circuit breaker db is open", err.Error())
	assert.Equal(t, 1, g.rejections())
	for _, e := range g.events() {
		if r, ok := e.(events.CallRejected); ok {
			assert.Equal(t, events.CallRejected{Policy: "breaker", Instance: "db", Err: err}, r)
		}
	}
	s := g.h.Snapshot()
	assert.EqualValues(t, 1, s.NotPermitted)
	assert.EqualValues(t, 5, s.Calls)
	assert.Equal(t, 0, s.BufferedCalls, "an open breaker has no window")
}

func TestThresholdIsInclusive(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 10, MinimumCalls: 10})
	g.succeed(5)
	g.fail(4)
	assert.Equal(t, breaker.StateClosed, g.h.State())
	s := g.h.Snapshot()
	assert.Equal(t, -1.0, s.FailureRate)
	assert.Equal(t, 9, s.BufferedCalls)
	assert.Equal(t, 4, s.Failures)
	g.fail(1) // 5 of 10: 50%
	assert.Equal(t, breaker.StateOpen, g.h.State())
}

func TestWindowSlides(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 10, MinimumCalls: 10})
	g.fail(4)
	g.succeed(6)
	s := g.h.Snapshot()
	assert.Equal(t, 0.4, s.FailureRate)
	g.succeed(3) // pushes out 3 of the 4 failures
	s = g.h.Snapshot()
	assert.Equal(t, 10, s.BufferedCalls)
	assert.Equal(t, 1, s.Failures)
	assert.Equal(t, 0.1, s.FailureRate)
	g.fail(3) // replaces the fourth failure and two successes: 3 of 10
	assert.Equal(t, 0.3, g.h.Snapshot().FailureRate)
	g.fail(1)
	assert.Equal(t, 0.4, g.h.Snapshot().FailureRate)
	assert.Equal(t, breaker.StateClosed, g.h.State())
	g.fail(1)
	assert.Equal(t, breaker.StateOpen, g.h.State())
}

func TestMinimumCallsIsCappedByWindowSize(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 4}) // MinimumCalls 100 by default
	g.fail(3)
	assert.Equal(t, breaker.StateClosed, g.h.State())
	g.fail(1)
	assert.Equal(t, breaker.StateOpen, g.h.State())
}

func TestSlowCalls(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 4, MinimumCalls: 4, SlowCallDuration: time.Second, SlowCallRateThreshold: 0.5})
	require.NoError(t, g.call(time.Second, nil), "exactly SlowCallDuration is not slow")
	require.NoError(t, g.call(time.Second+1, nil))
	require.NoError(t, g.call(0, nil))
	s := g.h.Snapshot()
	assert.Equal(t, 1, s.SlowCalls)
	assert.Equal(t, 0, s.Failures)
	require.NoError(t, g.call(2*time.Second, nil)) // 2 of 4 slow
	assert.Equal(t, breaker.StateOpen, g.h.State())
}

func TestSlowFailuresCountAsBoth(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 2, MinimumCalls: 2, SlowCallDuration: time.Second, FailureRateThreshold: 1, SlowCallRateThreshold: 1})
	require.NoError(t, g.call(0, nil))
	g.call(2*time.Second, errBoom)
	s := g.h.Snapshot()
	assert.Equal(t, 0.5, s.FailureRate)
	assert.Equal(t, 0.5, s.SlowCallRate)
	assert.Equal(t, breaker.StateClosed, s.State)
}

func openRig(t *testing.T, cfg breaker.Config) *rig {
	g := newRig(t, cfg)
	g.h.TransitionToOpen()
	require.Equal(t, breaker.StateOpen, g.h.State())
	return g
}

func TestOpenThenHalfOpenThenClosed(t *testing.T) {
	g := openRig(t, small())
	g.clk.Advance(10*time.Second - 1)
	assert.ErrorIs(t, g.call(0, nil), breaker.ErrOpen)
	assert.Equal(t, breaker.StateOpen, g.h.State(), "the state moves only when a call arrives")
	g.clk.Advance(1)
	assert.Equal(t, breaker.StateOpen, g.h.State())
	g.succeed(1)
	assert.Equal(t, breaker.StateHalfOpen, g.h.State())
	s := g.h.Snapshot()
	assert.Equal(t, 1, s.BufferedCalls)
	assert.Equal(t, 1, s.TrialCalls)
	assert.Equal(t, -1.0, s.FailureRate)
	g.succeed(1)
	g.fail(1) // 1 of 3 trials failed: 33% < 50%
	assert.Equal(t, breaker.StateClosed, g.h.State())
	assert.Equal(t, []string{"closed>open", "open>half-open", "half-open>closed"}, g.changes())
	assert.Equal(t, 0, g.h.Snapshot().BufferedCalls, "closed again with an empty window")
}

func TestHalfOpenOpensAgain(t *testing.T) {
	g := openRig(t, small())
	g.clk.Advance(10 * time.Second)
	g.succeed(1)
	g.fail(1)
	assert.Equal(t, breaker.StateHalfOpen, g.h.State())
	g.fail(1) // 2 of 3
	assert.Equal(t, breaker.StateOpen, g.h.State())
	assert.ErrorIs(t, g.call(0, nil), breaker.ErrOpen)
	g.clk.Advance(10 * time.Second)
	g.succeed(3)
	assert.Equal(t, breaker.StateClosed, g.h.State())
}

func TestHalfOpenSlowTrials(t *testing.T) {
	cfg := small()
	cfg.SlowCallDuration = time.Second
	g := openRig(t, cfg)
	g.clk.Advance(10 * time.Second)
	for range 3 {
		require.NoError(t, g.call(2*time.Second, nil))
	}
	assert.Equal(t, breaker.StateOpen, g.h.State(), "every trial slow: 100%")
}

func TestHalfOpenRefusesBeyondTheTrials(t *testing.T) {
	g := openRig(t, small())
	g.clk.Advance(10 * time.Second)
	var ps []breaker.Permit
	for range 3 {
		p, err := g.b.Allow()
		require.NoError(t, err)
		ps = append(ps, p)
	}
	_, err := g.b.Allow()
	var oe *breaker.OpenError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, breaker.StateHalfOpen, oe.State())
	assert.ErrorIs(t, err, breaker.ErrOpen)
	assert.Equal(t, "r4c: circuit breaker db is half-open and every trial call is taken", err.Error())
	assert.Equal(t, 3, g.h.Snapshot().TrialCalls)

	// An ignored trial gives its permit back.
	g.b.Record(context.Background(), ps[0], context.Canceled) // ctx not done: a plain error...
	s := g.h.Snapshot()
	assert.Equal(t, 1, s.BufferedCalls, "...so it counts as a failure")
	assert.Equal(t, 1, s.Failures)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g.b.Record(ctx, ps[1], ctx.Err()) // the caller's own cancellation: ignored
	s = g.h.Snapshot()
	assert.Equal(t, 1, s.BufferedCalls)
	assert.Equal(t, 2, s.TrialCalls)
	p, err := g.b.Allow()
	require.NoError(t, err, "the permit came back")
	g.b.Record(context.Background(), ps[2], nil)
	g.b.Record(context.Background(), p, nil) // 1 of 3 failed
	assert.Equal(t, breaker.StateClosed, g.h.State())
}

func TestMaxHalfOpenWait(t *testing.T) {
	cfg := small()
	cfg.MaxHalfOpenWait = 5 * time.Second
	g := openRig(t, cfg)
	g.clk.Advance(10 * time.Second)
	p, err := g.b.Allow() // a trial that hangs
	require.NoError(t, err)
	g.clk.Advance(5*time.Second - 1)
	g.succeed(1)
	assert.Equal(t, breaker.StateHalfOpen, g.h.State())
	g.clk.Advance(1)
	assert.ErrorIs(t, g.call(0, nil), breaker.ErrOpen)
	assert.Equal(t, breaker.StateOpen, g.h.State())
	assert.Equal(t, []string{"closed>open", "open>half-open", "half-open>open"}, g.changes())
	g.b.Record(context.Background(), p, nil) // late: dropped
	assert.Equal(t, breaker.StateOpen, g.h.State())
}

func TestOutcomesStraddlingATransitionAreDropped(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 2, MinimumCalls: 1})
	p, err := g.b.Allow()
	require.NoError(t, err)
	g.h.TransitionToClosed() // a new generation
	g.b.Record(context.Background(), p, errBoom)
	assert.Equal(t, breaker.StateClosed, g.h.State())
	assert.Equal(t, 0, g.h.Snapshot().BufferedCalls)
}

func TestClassification(t *testing.T) {
	errIgnored := errors.New("ignored")
	errOther := errors.New("other")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	limit := &policy.RejectedError{Kind: "adaptivelimit", Err: errLimit}
	for _, tc := range []struct {
		name string
		cfg  breaker.Config
		ctx  context.Context
		err  error
		want string // "success", "failure" or "ignored"
	}{
		{"success", breaker.Config{}, nil, nil, "success"},
		{"every error fails", breaker.Config{}, nil, errOther, "failure"},
		{"a full limit fails", breaker.Config{}, nil, limit, "failure"},
		{"unless ignored", breaker.Config{IgnoreOn: []error{errLimit}}, nil, limit, "ignored"},
		{"or every rejection ignored", breaker.Config{IgnoreOn: []error{policy.ErrRejected}}, nil, limit, "ignored"},
		{"ignoreIf", breaker.Config{IgnoreIf: func(err error) bool { return err == errIgnored }}, nil, errIgnored, "ignored"},
		{"recordOn matches", breaker.Config{RecordOn: []error{errBoom}}, nil, errBoom, "failure"},
		{"recordOn does not match: success", breaker.Config{RecordOn: []error{errBoom}}, nil, errOther, "success"},
		{"recordIf", breaker.Config{RecordIf: func(err error) bool { return err == errOther }}, nil, errOther, "failure"},
		{"ignore wins over record", breaker.Config{RecordOn: []error{errIgnored}, IgnoreOn: []error{errIgnored}}, nil, errIgnored, "ignored"},
		{"the caller's cancellation", breaker.Config{}, cancelled, context.Canceled, "ignored"},
		{"a canceled error, ctx alive", breaker.Config{}, nil, context.Canceled, "failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.WindowSize, cfg.MinimumCalls = 10, 10
			g := newRig(t, cfg)
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			_, _, err := g.st.Run(ctx, policy.NewNext[string](nil, func(context.Context) (string, error) { return "", tc.err }, nil))
			assert.Equal(t, tc.err, err, "the error passes through")
			s := g.h.Snapshot()
			switch tc.want {
			case "success":
				assert.Equal(t, 1, s.BufferedCalls)
				assert.Equal(t, 0, s.Failures)
			case "failure":
				assert.Equal(t, 1, s.BufferedCalls)
				assert.Equal(t, 1, s.Failures)
			case "ignored":
				assert.Equal(t, 0, s.BufferedCalls)
				assert.EqualValues(t, 0, s.Calls)
			}
		})
	}
}

func TestDisabled(t *testing.T) {
	cfg := small()
	cfg.Disabled = true
	g := newRig(t, cfg)
	assert.Equal(t, breaker.StateDisabled, g.h.State())
	p := &probe{end: policy.NoStamp}
	for range 20 {
		_, end, err := g.st.Run(context.Background(), policy.NewNext[string]([]policy.Link[string]{p}, func(context.Context) (string, error) { return "", errBoom }, nil))
		assert.ErrorIs(t, err, errBoom)
		assert.Equal(t, policy.NoStamp, end, "a disabled breaker reads no clock")
	}
	assert.Equal(t, policy.NoStamp, p.starts[0])
	assert.Equal(t, breaker.Snapshot{State: breaker.StateDisabled, Disabled: true, FailureRate: -1, SlowCallRate: -1}, g.h.Snapshot())
	g.h.TransitionToClosed()
	g.fail(5)
	assert.Equal(t, breaker.StateOpen, g.h.State())
	assert.Equal(t, []string{"disabled>closed", "closed>open"}, g.changes())
}

func TestForcedOpen(t *testing.T) {
	g := newRig(t, small())
	g.h.TransitionToForcedOpen()
	err := g.call(0, nil)
	var oe *breaker.OpenError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, breaker.StateForcedOpen, oe.State())
	assert.ErrorIs(t, err, policy.ErrRejected)
	assert.Equal(t, "r4c: circuit breaker db is forced open", err.Error())
	g.clk.Advance(time.Hour)
	assert.ErrorIs(t, g.call(0, nil), breaker.ErrOpen, "only a manual transition leaves it")
	_, err = g.b.Allow()
	assert.ErrorIs(t, err, breaker.ErrOpen)
	assert.Zero(t, g.calls.Load())
	assert.EqualValues(t, 3, g.h.Snapshot().NotPermitted)
	assert.Equal(t, 3, g.rejections())
}

func TestManualTransitionsAndReset(t *testing.T) {
	g := newRig(t, small())
	g.h.TransitionToOpen()
	g.h.TransitionToHalfOpen()
	assert.Equal(t, breaker.StateHalfOpen, g.h.State())
	g.h.TransitionToDisabled()
	g.h.TransitionToForcedOpen()
	g.call(0, nil)
	assert.EqualValues(t, 1, g.h.Snapshot().NotPermitted)
	g.h.Reset()
	assert.Equal(t, breaker.StateClosed, g.h.State())
	assert.Equal(t, []string{"closed>open", "open>half-open", "half-open>disabled", "disabled>forced-open", "forced-open>closed"}, g.changes())
	assert.Equal(t, breaker.Snapshot{State: breaker.StateClosed, FailureRate: -1, SlowCallRate: -1}, g.h.Snapshot())
	g.h.Reset() // closed to closed: a fresh window, no event
	assert.Len(t, g.changes(), 5)
}

func TestTransitionToOpenRestartsTheWait(t *testing.T) {
	g := openRig(t, small())
	g.clk.Advance(8 * time.Second)
	g.h.TransitionToOpen()
	g.clk.Advance(8 * time.Second)
	assert.ErrorIs(t, g.call(0, nil), breaker.ErrOpen)
	g.clk.Advance(2 * time.Second)
	assert.NoError(t, g.call(0, nil))
}

func TestListenersRunWithoutALock(t *testing.T) {
	g := newRig(t, small())
	seen := make(chan breaker.State, 10)
	stop := g.bus.Subscribe(func(e events.Event) {
		if _, ok := e.(events.BreakerStateChanged); ok {
			seen <- g.h.State() // would deadlock under a lock
			_ = g.h.Snapshot()
		}
	})
	defer stop()
	g.fail(5)
	assert.Equal(t, breaker.StateOpen, <-seen)
}

func TestPanicIsAFailure(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 2, MinimumCalls: 2})
	for range 2 {
		assert.PanicsWithValue(t, "oops", func() {
			g.st.Run(context.Background(), policy.NewNext[string](nil, func(context.Context) (string, error) { panic("oops") }, nil))
		})
	}
	assert.Equal(t, breaker.StateOpen, g.h.State())

	g = newRig(t, breaker.Config{WindowSize: 1, MinimumCalls: 1})
	assert.PanicsWithValue(t, "oops", func() {
		g.b.Do(context.Background(), func(context.Context) error { panic("oops") })
	})
	assert.Equal(t, breaker.StateOpen, g.h.State(), "Do records a panic as a failure too")
}

// probe is an inner stage that records the start reading it gets and
// returns the end reading it is told to (policy.NoStamp for none).
type probe struct {
	starts []policy.Stamp
	end    policy.Stamp
}

func (p *probe) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	p.starts = append(p.starts, next.Start)
	v, _, err := next.Run(ctx)
	return v, p.end, err
}

func (p *probe) RunAsync(ctx context.Context, next policy.AsyncNext[string]) *future.Future[string] {
	return next.Call(ctx)
}

func TestReadingsAreShared(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 1, MinimumCalls: 1, SlowCallDuration: time.Second, FailureRateThreshold: 1, SlowCallRateThreshold: 1})
	fn := func(context.Context) (string, error) { return "v", nil }

	// An outer start, an inner end: the breaker reads nothing and judges
	// the latency from them.
	p := &probe{end: policy.Stamp(1000 + int64(time.Second))}
	next := policy.NewNext[string]([]policy.Link[string]{p}, fn, nil).WithStart(1000)
	_, end, err := g.st.Run(context.Background(), next)
	require.NoError(t, err)
	assert.Equal(t, policy.Stamp(1000), p.starts[0], "the start goes inward")
	assert.Equal(t, p.end, end, "the inner end goes upward")
	assert.Equal(t, breaker.StateClosed, g.h.State(), "1s: not slow")

	p.end++
	_, _, _ = g.st.Run(context.Background(), next)
	assert.Equal(t, breaker.StateOpen, g.h.State(), "1s+1ns: slow")

	// No outer start, no inner end: the breaker reads the clock twice.
	g.h.TransitionToClosed()
	g.clk.Advance(time.Minute)
	p2 := &probe{end: policy.NoStamp}
	_, end, _ = g.st.Run(context.Background(), policy.NewNext[string]([]policy.Link[string]{p2}, func(context.Context) (string, error) {
		g.clk.Advance(3 * time.Second)
		return "v", nil
	}, nil))
	at := int64(time.Minute)
	assert.Equal(t, policy.Stamp(at), p2.starts[0])
	assert.Equal(t, policy.Stamp(at+int64(3*time.Second)), end)
	assert.Equal(t, breaker.StateOpen, g.h.State(), "3s: slow")
}

func TestDo(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 1, MinimumCalls: 1})
	assert.NoError(t, g.b.Do(context.Background(), func(context.Context) error { return nil }))
	assert.ErrorIs(t, g.b.Do(context.Background(), func(context.Context) error { return errBoom }), errBoom)
	called := false
	err := g.b.Do(context.Background(), func(context.Context) error { called = true; return nil })
	assert.ErrorIs(t, err, breaker.ErrOpen)
	assert.False(t, called)
}

func TestAllowWhileDisabled(t *testing.T) {
	g := newRig(t, breaker.Config{Disabled: true})
	p, err := g.b.Allow()
	require.NoError(t, err)
	assert.Equal(t, breaker.Permit{}, p)
	g.b.Record(context.Background(), p, errBoom)
	assert.Equal(t, breaker.StateDisabled, g.h.State())
}

func TestHandleConfig(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 7})
	c := g.h.Config()
	assert.Equal(t, 7, c.WindowSize)
	assert.Equal(t, 100, c.MinimumCalls, "as configured; the window caps it when judging")
}
