package retry_test

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
	"github.com/resilience4cata/r4c/policy/retry"
)

func TestFirstAttemptSucceeds(t *testing.T) {
	g := newRig(t, retry.Config{})
	v, _, err := g.run(context.Background(), g.script(ok("a")))
	require.NoError(t, err)
	assert.Equal(t, "a", v)
	assert.EqualValues(t, 1, g.calls.Load())
	assert.Zero(t, g.clk.Pending())
	assert.Empty(t, g.events(), "a call that succeeds publishes nothing")
	s := g.r.Handle().Snapshot()
	assert.Equal(t, retry.Snapshot{MaxAttempts: 3, Calls: 1, SuccessesWithoutRetry: 1}, s)
}

func TestRetriesAfterTheWaitAndSucceeds(t *testing.T) {
	g := newRig(t, retry.Config{})
	ch := g.start(context.Background(), g.script(fail(errBoom), fail(errBoom), ok("third")))

	g.waitTimers(1)
	assert.EqualValues(t, 1, g.calls.Load())
	g.clk.Advance(499 * time.Millisecond)
	assert.EqualValues(t, 1, g.calls.Load(), "the default wait is 500ms")
	assert.Equal(t, 1, g.clk.Pending())
	g.clk.Advance(time.Millisecond)

	g.waitTimers(1) // the second attempt failed: a new wait
	assert.EqualValues(t, 2, g.calls.Load())
	g.clk.Advance(500 * time.Millisecond)

	r := recv(t, ch)
	require.NoError(t, r.err)
	assert.Equal(t, "third", r.v)
	assert.EqualValues(t, 3, g.calls.Load())

	assert.Equal(t, []events.RetryAttempt{
		{Instance: "svc", Attempt: 2, Wait: 500 * time.Millisecond, Err: errBoom},
		{Instance: "svc", Attempt: 3, Wait: 500 * time.Millisecond, Err: errBoom},
	}, g.attempts())
	s := g.r.Handle().Snapshot()
	assert.EqualValues(t, 1, s.Calls)
	assert.EqualValues(t, 2, s.Retries)
	assert.EqualValues(t, 1, s.SuccessesWithRetry)
}

func TestExhausted(t *testing.T) {
	g := newRig(t, retry.Config{MaxAttempts: 3, Jitter: retry.JitterFull, Rand: constant(0)})
	v, _, err := g.run(context.Background(), g.script(failv("x")))
	assert.Equal(t, "x", v, "the last attempt's value comes back with the error")
	var ex *retry.ExhaustedError
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, 3, ex.Attempts)
	assert.Equal(t, errBoom, ex.Last)
	assert.Equal(t, "svc", ex.InstanceID())
	assert.False(t, ex.Budget)
	assert.ErrorIs(t, err, retry.ErrExhausted)
	assert.ErrorIs(t, err, errBoom)
	assert.NotErrorIs(t, err, retry.ErrBudgetExhausted)
	assert.NotErrorIs(t, err, policy.ErrRejected)
	assert.Equal(t, "r4c: retry svc gave up after 3 attempts: boom", err.Error())
	assert.EqualValues(t, 3, g.calls.Load())
	s := g.r.Handle().Snapshot()
	assert.EqualValues(t, 1, s.Exhausted)
	assert.EqualValues(t, 2, s.Retries)
}

func TestMaxAttemptsOneWrapsTheRetryableError(t *testing.T) {
	g := newRig(t, retry.Config{MaxAttempts: 1})
	_, _, err := g.run(context.Background(), g.script(fail(errBoom)))
	assert.ErrorIs(t, err, retry.ErrExhausted)
	assert.Equal(t, "r4c: retry svc gave up after 1 attempt: boom", err.Error())
	assert.EqualValues(t, 1, g.calls.Load())
	assert.Empty(t, g.attempts())
}

func TestBackoff(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name string
		cfg  retry.Config
		want []time.Duration
	}{
		{"constant", retry.Config{MaxAttempts: 4, Wait: 100 * ms}, []time.Duration{100 * ms, 100 * ms, 100 * ms}},
		{"exponential", retry.Config{MaxAttempts: 5, Wait: 100 * ms, Multiplier: 2}, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms}},
		{"capped", retry.Config{MaxAttempts: 5, Wait: 100 * ms, Multiplier: 2, MaxDelay: 300 * ms}, []time.Duration{100 * ms, 200 * ms, 300 * ms, 300 * ms}},
		{"one and a half", retry.Config{MaxAttempts: 4, Wait: 100 * ms, Multiplier: 1.5}, []time.Duration{100 * ms, 150 * ms, 225 * ms}},
		{"full jitter", retry.Config{MaxAttempts: 4, Wait: 100 * ms, Multiplier: 2, Jitter: retry.JitterFull, Rand: sequence(0.5, 0.25, 0.999)},
			[]time.Duration{50 * ms, 50 * ms, time.Duration(0.999 * float64(400*ms))}},
		{"full jitter capped", retry.Config{MaxAttempts: 3, Wait: 100 * ms, Multiplier: 4, MaxDelay: 200 * ms, Jitter: retry.JitterFull, Rand: constant(0.5)},
			[]time.Duration{50 * ms, 100 * ms}},
		// decorrelated: Wait + r*(3*prev - Wait), prev starting at Wait.
		{"decorrelated", retry.Config{MaxAttempts: 4, Wait: 100 * ms, Jitter: retry.JitterDecorrelated, Rand: sequence(0.5, 1, 0)},
			[]time.Duration{200 * ms, 600 * ms, 100 * ms}},
		{"decorrelated capped", retry.Config{MaxAttempts: 3, Wait: 100 * ms, MaxDelay: 150 * ms, Jitter: retry.JitterDecorrelated, Rand: constant(1)},
			[]time.Duration{150 * ms, 150 * ms}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newRig(t, tc.cfg)
			ch := g.start(context.Background(), g.script(fail(errBoom)))
			start := g.clk.Now()
			var total time.Duration
			for i, want := range tc.want {
				g.waitTimers(1)
				g.clk.Advance(want - 1)
				assert.EqualValues(t, i+1, g.calls.Load(), "retry %d started early", i+1)
				g.clk.Advance(1)
				total += want
			}
			r := recv(t, ch)
			assert.ErrorIs(t, r.err, retry.ErrExhausted)
			var got []time.Duration
			for _, a := range g.attempts() {
				got = append(got, a.Wait)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, total, g.clk.Now().Sub(start))
		})
	}
}

func TestWhatIsRetried(t *testing.T) {
	errOther := errors.New("other")
	wrapped := func(err error) error { return &wrapErr{err} }
	for _, tc := range []struct {
		name  string
		cfg   retry.Config
		err   error
		retry bool
	}{
		{"every error by default", retry.Config{}, errBoom, true},
		{"a wrapped error", retry.Config{}, wrapped(errBoom), true},
		{"retryOn matches", retry.Config{RetryOn: []error{errBoom}}, wrapped(errBoom), true},
		{"retryOn does not match", retry.Config{RetryOn: []error{errBoom}}, errOther, false},
		{"retryIf", retry.Config{RetryIf: func(err error) bool { return err == errOther }}, errOther, true},
		{"retryIf false", retry.Config{RetryIf: func(err error) bool { return false }}, errBoom, false},
		{"retryOn or retryIf", retry.Config{RetryOn: []error{errFatal}, RetryIf: func(err error) bool { return err == errOther }}, errOther, true},
		{"abortOn", retry.Config{AbortOn: []error{errFatal}}, wrapped(errFatal), false},
		{"abortOn wins over retryOn", retry.Config{RetryOn: []error{errFatal}, AbortOn: []error{errFatal}}, errFatal, false},
		{"abortIf wins over retryIf", retry.Config{RetryIf: func(error) bool { return true }, AbortIf: func(err error) bool { return err == errFatal }}, errFatal, false},
		{"a rejection is an ordinary error", retry.Config{}, &policy.RejectedError{Kind: "adaptivelimit", Err: errLimit}, true},
		{"abort on every rejection", retry.Config{AbortOn: []error{policy.ErrRejected}}, &policy.RejectedError{Kind: "adaptivelimit", Err: errLimit}, false},
		{"abort on one sentinel", retry.Config{AbortOn: []error{errLimit}}, &policy.RejectedError{Kind: "adaptivelimit", Err: errLimit}, false},
		{"context.Canceled not the caller's", retry.Config{}, context.Canceled, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.MaxAttempts = 2
			cfg.Jitter, cfg.Rand = retry.JitterFull, constant(0) // no wait
			g := newRig(t, cfg)
			_, _, err := g.run(context.Background(), g.script(fail(tc.err)))
			s := g.r.Handle().Snapshot()
			if tc.retry {
				assert.EqualValues(t, 2, g.calls.Load())
				assert.ErrorIs(t, err, retry.ErrExhausted)
				assert.ErrorIs(t, err, tc.err)
				assert.EqualValues(t, 1, s.Exhausted)
			} else {
				assert.EqualValues(t, 1, g.calls.Load())
				assert.Same(t, tc.err, err, "an error not retried comes back unchanged")
				assert.EqualValues(t, 1, s.FailuresWithoutRetry)
			}
		})
	}
}

var errLimit = errors.New("r4c: adaptive limit exceeded")

type wrapErr struct{ err error }

func (e *wrapErr) Error() string { return "wrapped: " + e.err.Error() }
func (e *wrapErr) Unwrap() error { return e.err }

func TestAbortAfterARetry(t *testing.T) {
	g := newRig(t, retry.Config{AbortOn: []error{errFatal}, Jitter: retry.JitterFull, Rand: constant(0)})
	_, _, err := g.run(context.Background(), g.script(fail(errBoom), fail(errFatal)))
	assert.Same(t, errFatal, err)
	assert.EqualValues(t, 2, g.calls.Load())
	s := g.r.Handle().Snapshot()
	assert.EqualValues(t, 1, s.FailuresWithRetry)
	assert.EqualValues(t, 1, s.Calls)
}

func TestCallerCancellationIsNeverRetried(t *testing.T) {
	g := newRig(t, retry.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	v, _, err := g.run(ctx, func(ctx context.Context) (string, error) {
		g.calls.Add(1)
		cancel()
		return "partial", ctx.Err()
	})
	assert.Same(t, context.Canceled, err, "returned as is")
	assert.Equal(t, "partial", v)
	assert.EqualValues(t, 1, g.calls.Load())
	assert.Zero(t, g.clk.Pending())
	assert.EqualValues(t, 1, g.r.Handle().Snapshot().Cancelled)
}

func TestCancelDuringTheWait(t *testing.T) {
	g := newRig(t, retry.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	ch := g.start(ctx, g.script(failv("x")))
	g.waitTimers(1)
	cancel()
	r := recv(t, ch)
	assert.Same(t, context.Canceled, r.err, "a wait cut short returns ctx.Err()")
	assert.Equal(t, "", r.v)
	assert.False(t, r.stamp.OK())
	assert.Zero(t, g.clk.Pending(), "the timer is stopped")
	assert.EqualValues(t, 1, g.calls.Load())
	assert.EqualValues(t, 1, g.r.Handle().Snapshot().Cancelled)
}

func TestDeadlineDuringTheWait(t *testing.T) {
	g := newRig(t, retry.Config{})
	ctx, cancel := g.clk.WithDeadline(context.Background(), g.clk.Now().Add(300*time.Millisecond))
	defer cancel()
	ch := g.start(ctx, g.script(fail(errBoom)))
	g.waitTimers(2) // the deadline and the wait
	g.clk.Advance(300 * time.Millisecond)
	r := recv(t, ch)
	assert.ErrorIs(t, r.err, context.DeadlineExceeded)
	assert.EqualValues(t, 1, g.calls.Load())
}

func TestRetryIfResult(t *testing.T) {
	bad := func(v any) bool { return v.(string) == "bad" }
	t.Run("then good", func(t *testing.T) {
		g := newRig(t, retry.Config{RetryIfResult: bad, Jitter: retry.JitterFull, Rand: constant(0)})
		v, _, err := g.run(context.Background(), g.script(ok("bad"), ok("good")))
		require.NoError(t, err)
		assert.Equal(t, "good", v)
		assert.Equal(t, []events.RetryAttempt{{Instance: "svc", Attempt: 2, Err: retry.ErrRetryableResult}}, g.attempts())
	})
	t.Run("exhausted", func(t *testing.T) {
		g := newRig(t, retry.Config{RetryIfResult: bad, Jitter: retry.JitterFull, Rand: constant(0)})
		v, _, err := g.run(context.Background(), g.script(ok("bad")))
		assert.Equal(t, "bad", v)
		assert.ErrorIs(t, err, retry.ErrExhausted)
		assert.ErrorIs(t, err, retry.ErrRetryableResult)
		assert.EqualValues(t, 3, g.calls.Load())
	})
	t.Run("errors still retried", func(t *testing.T) {
		g := newRig(t, retry.Config{RetryIfResult: bad, Jitter: retry.JitterFull, Rand: constant(0)})
		v, _, err := g.run(context.Background(), g.script(fail(errBoom), ok("good")))
		require.NoError(t, err)
		assert.Equal(t, "good", v)
	})
}

func TestDisabled(t *testing.T) {
	g := newRig(t, retry.Config{Disabled: true})
	_, _, err := g.run(context.Background(), g.script(fail(errBoom)))
	assert.Same(t, errBoom, err)
	assert.EqualValues(t, 1, g.calls.Load())
	s := g.r.Handle().Snapshot()
	assert.True(t, s.Disabled)
	assert.Zero(t, s.Calls)
}

func TestPanicGoesOn(t *testing.T) {
	g := newRig(t, retry.Config{})
	assert.PanicsWithValue(t, "oops", func() {
		g.run(context.Background(), func(context.Context) (string, error) { panic("oops") })
	})
	assert.Zero(t, g.clk.Pending())
}

// probe is an inner stage that records the start reading it gets and
// returns an end reading of its own.
type probe struct {
	starts []policy.Stamp
	end    int64
}

func (p *probe) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	p.starts = append(p.starts, next.Start)
	p.end++
	v, _, err := next.Run(ctx)
	return v, policy.Stamp(p.end), err
}

func (p *probe) RunAsync(ctx context.Context, next policy.AsyncNext[string]) *future.Future[string] {
	return next.Call(ctx)
}

func TestReadingsAreSharedOnTheFirstAttemptOnly(t *testing.T) {
	g := newRig(t, retry.Config{Jitter: retry.JitterFull, Rand: constant(0)})
	p := &probe{}
	next := policy.NewNext[string]([]policy.Link[string]{p}, g.script(fail(errBoom), ok("ok")), nil).WithStart(42)
	v, end, err := retry.Stage[string](g.r).Run(context.Background(), next)
	require.NoError(t, err)
	assert.Equal(t, "ok", v)
	assert.Equal(t, []policy.Stamp{42, policy.NoStamp}, p.starts, "the first attempt gets the start, later ones start afresh")
	assert.Equal(t, policy.Stamp(2), end, "the last attempt's end reading goes upward")
}

func TestDo(t *testing.T) {
	g := newRig(t, retry.Config{Jitter: retry.JitterFull, Rand: constant(0)})
	n := 0
	err := g.r.Do(context.Background(), func(context.Context) error {
		n++
		if n < 2 {
			return errBoom
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, n)
}

func TestDoOutcomes(t *testing.T) {
	noWait := retry.Config{AbortOn: []error{errFatal}, Jitter: retry.JitterFull, Rand: constant(0)}
	g := newRig(t, noWait)
	assert.Same(t, errFatal, g.r.Do(context.Background(), func(context.Context) error { return errFatal }))
	err := g.r.Do(context.Background(), func(context.Context) error { return errBoom })
	var ex *retry.ExhaustedError
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, 3, ex.Attempts)
	s := g.r.Handle().Snapshot()
	assert.EqualValues(t, 1, s.FailuresWithoutRetry)
	assert.EqualValues(t, 1, s.Exhausted)
	assert.EqualValues(t, 2, s.Retries)

	budget := noWait
	budget.MaxAttempts, budget.BudgetRatio, budget.BudgetMinRetries = 5, 0.1, 1
	g = newRig(t, budget)
	err = g.r.Do(context.Background(), func(context.Context) error { return errBoom })
	require.ErrorAs(t, err, &ex)
	assert.True(t, ex.Budget)
	assert.Equal(t, 2, ex.Attempts)

	g = newRig(t, retry.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.r.Do(ctx, func(context.Context) error { return errBoom }) }()
	g.waitTimers(1)
	cancel()
	assert.Same(t, context.Canceled, recv(t, done))
	assert.EqualValues(t, 1, g.r.Handle().Snapshot().Cancelled)

	g = newRig(t, retry.Config{Disabled: true})
	assert.Same(t, errBoom, g.r.Do(context.Background(), func(context.Context) error { return errBoom }))
}

func TestHandleConfig(t *testing.T) {
	g := newRig(t, retry.Config{MaxAttempts: 5})
	c := g.r.Handle().Config()
	assert.Equal(t, 5, c.MaxAttempts)
	assert.Equal(t, 500*time.Millisecond, c.Wait)
	assert.Equal(t, 1.0, c.Multiplier)
}

func TestNoEventsWithoutSubscriber(t *testing.T) {
	r, err := retry.New(retry.Config{Jitter: retry.JitterFull, Rand: constant(0)}, policy.Env{})
	require.NoError(t, err)
	n := 0
	_, _, err = retry.Stage[string](r).Run(context.Background(), policy.NewNext[string](nil, func(context.Context) (string, error) {
		n++
		return "", errBoom
	}, nil))
	assert.ErrorIs(t, err, retry.ErrExhausted)
	assert.Equal(t, 3, n)
}
