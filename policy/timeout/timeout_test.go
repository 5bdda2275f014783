package timeout_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigDefaults(t *testing.T) {
	c := timeout.Config{}.WithDefaults()
	assert.Equal(t, time.Second, c.Timeout)
	assert.False(t, c.Cooperative)
	assert.False(t, c.Disabled)
	assert.NoError(t, c.Validate())

	c = timeout.Config{Timeout: 3 * time.Second, Cooperative: true}.WithDefaults()
	assert.Equal(t, 3*time.Second, c.Timeout)
	assert.True(t, c.Cooperative)
}

func TestConfigValidate(t *testing.T) {
	for _, d := range []time.Duration{-1, -time.Second} {
		_, err := timeout.New(timeout.Config{Timeout: d}, policy.Env{})
		var fe *policy.FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, "timeout", fe.Key)
		assert.Equal(t, d.String(), fe.Value)
		assert.Equal(t, policy.ClassDuration, fe.Class)
		assert.Equal(t, err, error(fe), "New returns the FieldError unwrapped")
	}
	// Validate checks the final values: a zero Timeout is not positive.
	var fe *policy.FieldError
	require.ErrorAs(t, timeout.Config{}.Validate(), &fe)
	assert.Equal(t, "timeout", fe.Key)
}

func TestCallTimeoutError(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: 2 * time.Second, Cooperative: true})
	ch := make(chan error, 1)
	go func() {
		ch <- f.t.Run(context.Background(), func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	}()
	f.blockUntil(t, 1)
	f.clk.Advance(2 * time.Second)
	err := recv(t, ch)

	assert.ErrorIs(t, err, timeout.ErrCallTimeout)
	assert.ErrorIs(t, err, policy.ErrCallTimeout)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotErrorIs(t, err, policy.ErrRejected, "a timeout is not a rejection: the function was called")
	assert.NotErrorIs(t, err, context.Canceled)
	var te *timeout.CallTimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "search", te.InstanceID())
	assert.Equal(t, 2*time.Second, te.Duration())
	assert.True(t, te.Timeout())
	var ne interface{ Timeout() bool }
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
	assert.Equal(t, "r4c: call timed out after 2s (timeout search)", err.Error())
	assert.False(t, policy.CallerCancelled(context.Background(), err))

	// The same preallocated value every time.
	go func() {
		ch <- f.t.Run(context.Background(), func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	}()
	f.blockUntil(t, 1)
	f.clk.Advance(2 * time.Second)
	assert.Same(t, te, recv(t, ch))
}

func TestNoInstanceInMessage(t *testing.T) {
	to, err := timeout.New(timeout.Config{Timeout: time.Millisecond}, policy.Env{Clock: clocktest.NewManualClock()})
	require.NoError(t, err)
	assert.Equal(t, time.Millisecond, to.Duration())
	ctx := context.Background()
	clk := clocktest.NewManualClock()
	to, err = timeout.New(timeout.Config{Timeout: time.Millisecond, Cooperative: true}, policy.Env{Clock: clk})
	require.NoError(t, err)
	ch := make(chan error, 1)
	go func() { ch <- to.Run(ctx, func(ctx context.Context) error { <-ctx.Done(); return nil }) }()
	require.NoError(t, clk.BlockUntil(ctx, 1))
	clk.Advance(time.Millisecond)
	assert.Equal(t, "r4c: call timed out after 1ms", recv(t, ch).Error())
}

// Both modes: the work gets a ctx with the deadline on the clock, a call
// that returns in time returns its outcome, next.Start goes inward and the
// inner end reading comes back upward, and no timer is left behind.
func TestInTime(t *testing.T) {
	for _, coop := range []bool{false, true} {
		t.Run(mode(coop), func(t *testing.T) {
			f := newFixture(t, timeout.Config{Timeout: 2 * time.Second, Cooperative: coop})
			p := &probe{end: policy.Stamp(77)}
			var deadline time.Time
			var hasDeadline bool
			fn := func(ctx context.Context) (string, error) {
				deadline, hasDeadline = ctx.Deadline()
				return "ok", nil
			}
			next := chain(fn, timeout.Stage[string](f.t), p).WithStart(42)
			r := run(context.Background(), next)
			require.NoError(t, r.err)
			assert.Equal(t, "ok", r.v)
			assert.Equal(t, policy.Stamp(77), r.end, "inner end reading passed upward")
			st, calls := p.seen()
			assert.Equal(t, policy.Stamp(42), st, "start reading passed inward unchanged")
			assert.Equal(t, 1, calls)
			assert.True(t, hasDeadline)
			assert.Equal(t, clocktest.Start.Add(2*time.Second), deadline)
			assert.Zero(t, f.clk.Pending(), "deadline timer released")
			assert.Zero(t, f.h.Timeouts())
			assert.Empty(t, f.rec.All(), "an admitted call publishes nothing")

			// An error of the work passes through untouched.
			boom := errors.New("boom")
			r = run(context.Background(), chain(func(context.Context) (string, error) { return "", boom }, timeout.Stage[string](f.t)))
			assert.Same(t, boom, r.err)
			assert.False(t, r.end.OK())
			assert.Zero(t, f.clk.Pending())
		})
	}
}

func mode(coop bool) string {
	if coop {
		return "cooperative"
	}
	return "default"
}

// Default mode: the caller gets the timeout at the deadline although the
// work ignores its ctx; the work goes on until it returns.
func TestDefaultModeReturnsAtDeadline(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	release := make(chan struct{})
	workDone := make(chan struct{})
	fn := func(context.Context) (string, error) {
		defer close(workDone)
		<-release // ignores its ctx
		return "late", nil
	}
	ch := start(context.Background(), chain(fn, timeout.Stage[string](f.t)).WithStart(0))
	f.blockUntil(t, 1)
	f.clk.Advance(999 * time.Millisecond)
	assert.True(t, pending(ch), "no timeout before the deadline")
	f.clk.Advance(time.Millisecond)
	r := recv(t, ch)

	var te *timeout.CallTimeoutError
	require.ErrorAs(t, r.err, &te)
	assert.Empty(t, r.v)
	assert.Equal(t, policy.Stamp(int64(time.Second)), r.end, "the clock read once at the deadline")
	assert.Equal(t, int64(1), f.h.Timeouts())
	assert.Equal(t, []events.Event{events.Timeout{Instance: "search", Timeout: time.Second}}, f.rec.All())
	assert.Zero(t, f.clk.Pending())

	select {
	case <-workDone:
		t.Fatal("the abandoned work should still run")
	default:
	}
	close(release)
	<-workDone
}

// Default mode, the work honours its ctx and returns its own error at the
// deadline: still a timeout.
func TestDefaultModeWorkHonoursCtx(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	fn := func(ctx context.Context) (string, error) {
		<-ctx.Done()
		return "late", ctx.Err()
	}
	for i := range 20 { // both orders of the race between the deadline and the work's return
		ch := start(context.Background(), chain(fn, timeout.Stage[string](f.t)))
		f.blockUntil(t, 1)
		f.clk.Advance(time.Second)
		r := recv(t, ch)
		require.ErrorIs(t, r.err, timeout.ErrCallTimeout, "call %d", i)
		require.Empty(t, r.v)
		require.True(t, r.end.OK())
	}
	assert.Equal(t, int64(20), f.h.Timeouts())
	assert.Len(t, f.rec.All(), 20)
}

// The caller's own cancellation is not a timeout, in either mode.
func TestCallerCancellation(t *testing.T) {
	for _, coop := range []bool{false, true} {
		t.Run(mode(coop), func(t *testing.T) {
			f := newFixture(t, timeout.Config{Timeout: time.Second, Cooperative: coop})
			ctx, cancel := context.WithCancel(context.Background())
			workErr := make(chan error, 1)
			fn := func(wctx context.Context) (string, error) {
				<-wctx.Done()
				workErr <- wctx.Err()
				return "", wctx.Err()
			}
			ch := start(ctx, chain(fn, timeout.Stage[string](f.t)))
			f.blockUntil(t, 1)
			cancel()
			r := recv(t, ch)
			assert.ErrorIs(t, r.err, context.Canceled)
			assert.NotErrorIs(t, r.err, timeout.ErrCallTimeout)
			assert.True(t, policy.CallerCancelled(ctx, r.err))
			assert.ErrorIs(t, recv(t, workErr), context.Canceled, "the work's ctx is cancelled with the caller's")
			assert.Zero(t, f.h.Timeouts())
			assert.Empty(t, f.rec.All())
			assert.Zero(t, drained(f.clk))
		})
	}
}

// A caller deadline earlier than the timeout is the caller's, not a
// timeout: the caller gets context.DeadlineExceeded but no
// *CallTimeoutError.
func TestCallerDeadlineFirst(t *testing.T) {
	for _, coop := range []bool{false, true} {
		t.Run(mode(coop), func(t *testing.T) {
			f := newFixture(t, timeout.Config{Timeout: time.Second, Cooperative: coop})
			ctx, cancel := f.clk.WithDeadline(context.Background(), clocktest.Start.Add(500*time.Millisecond))
			defer cancel()
			deadlines := make(chan time.Time, 1)
			fn := func(wctx context.Context) (string, error) {
				d, _ := wctx.Deadline()
				deadlines <- d
				<-wctx.Done()
				return "", wctx.Err()
			}
			ch := start(ctx, chain(fn, timeout.Stage[string](f.t)))
			f.blockUntil(t, 2)
			f.clk.Advance(500 * time.Millisecond)
			r := recv(t, ch)
			assert.ErrorIs(t, r.err, context.DeadlineExceeded)
			var te *timeout.CallTimeoutError
			assert.False(t, errors.As(r.err, &te), "the caller's deadline is not a timeout")
			assert.True(t, policy.CallerCancelled(ctx, r.err))
			assert.Equal(t, clocktest.Start.Add(500*time.Millisecond), recv(t, deadlines), "the earlier deadline reaches the work")
			assert.Zero(t, f.h.Timeouts())
		})
	}
}

// Default mode does not start the work for a caller that gave up already.
func TestDefaultModeCallerDoneBeforeStart(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	r := run(ctx, chain(func(context.Context) (string, error) { called = true; return "", nil }, timeout.Stage[string](f.t)))
	assert.ErrorIs(t, r.err, context.Canceled)
	assert.False(t, called)
	assert.Zero(t, f.clk.Pending())
}

// Cooperative mode waits for the work; a late outcome becomes the timeout
// and the value is dropped.
func TestCooperativeLateResult(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second, Cooperative: true})
	p := &probe{end: policy.Stamp(5)}
	reached := make(chan struct{})
	release := make(chan struct{})
	fn := func(ctx context.Context) (string, error) {
		close(reached)
		<-release // ignores its ctx
		return "late value", nil
	}
	ch := start(context.Background(), chain(fn, timeout.Stage[string](f.t), p))
	<-reached
	f.clk.Advance(time.Second)
	assert.True(t, pending(ch), "cooperative mode waits for the work")
	close(release)
	r := recv(t, ch)
	var te *timeout.CallTimeoutError
	require.ErrorAs(t, r.err, &te)
	assert.Empty(t, r.v, "the late value is dropped")
	assert.Equal(t, policy.Stamp(5), r.end, "the inner end reading: when the work returned")
	assert.Equal(t, int64(1), f.h.Timeouts())
	assert.Len(t, f.rec.All(), 1)
	assert.Zero(t, f.clk.Pending())
}

// Cooperative mode runs the work on the caller's goroutine: a work that
// returns its ctx's error at the deadline gives a timeout.
func TestCooperativeOnCallersGoroutine(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second, Cooperative: true})
	go func() {
		_ = f.clk.BlockUntil(context.Background(), 1)
		f.clk.Advance(time.Second)
	}()
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "v")
	var sawValue any
	r := run(ctx, chain(func(wctx context.Context) (string, error) {
		sawValue = wctx.Value(key{}) // written on this goroutine: no race if cooperative
		<-wctx.Done()
		return "x", wctx.Err()
	}, timeout.Stage[string](f.t)))
	assert.ErrorIs(t, r.err, timeout.ErrCallTimeout)
	assert.Equal(t, "v", sawValue)
	assert.False(t, r.end.OK(), "no inner reading: the stage above reads the clock itself")
}

func TestPanicReachesCaller(t *testing.T) {
	for _, coop := range []bool{false, true} {
		t.Run(mode(coop), func(t *testing.T) {
			f := newFixture(t, timeout.Config{Timeout: time.Second, Cooperative: coop})
			next := chain(func(context.Context) (string, error) { panic("kaboom") }, timeout.Stage[string](f.t))
			for range 3 { // the recycled record still works after a panic
				assert.PanicsWithValue(t, "kaboom", func() { next.Run(context.Background()) })
				assert.Zero(t, f.clk.Pending())
			}
			r := run(context.Background(), chain(func(context.Context) (string, error) { return "ok", nil }, timeout.Stage[string](f.t)))
			assert.Equal(t, "ok", r.v)
		})
	}
}

func TestPanicErrorValue(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	boom := errors.New("boom")
	defer func() {
		assert.Same(t, boom, recover())
	}()
	run(context.Background(), chain(func(context.Context) (string, error) { panic(boom) }, timeout.Stage[string](f.t)))
}

func TestDisabled(t *testing.T) {
	f := newFixture(t, timeout.Config{Disabled: true, Timeout: time.Nanosecond})
	p := &probe{end: policy.Stamp(9)}
	var has bool
	r := run(context.Background(), chain(func(ctx context.Context) (string, error) {
		_, has = ctx.Deadline() // on the caller's goroutine: no race
		return "ok", nil
	}, timeout.Stage[string](f.t), p).WithStart(3))
	assert.Equal(t, "ok", r.v)
	assert.False(t, has, "no deadline when disabled")
	assert.Equal(t, policy.Stamp(9), r.end)
	st, _ := p.seen()
	assert.Equal(t, policy.Stamp(3), st)
	assert.Zero(t, f.clk.Pending())
}

func TestRunStandalone(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	boom := errors.New("boom")
	assert.NoError(t, f.t.Run(context.Background(), func(context.Context) error { return nil }))
	assert.Same(t, boom, f.t.Run(context.Background(), func(context.Context) error { return boom }))
	ch := make(chan error, 1)
	go func() {
		ch <- f.t.Run(context.Background(), func(ctx context.Context) error { <-ctx.Done(); return nil })
	}()
	f.blockUntil(t, 1)
	f.clk.Advance(time.Second)
	assert.ErrorIs(t, recv(t, ch), timeout.ErrCallTimeout)
}

func TestHandleSnapshot(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: 3 * time.Second, Cooperative: true})
	assert.Equal(t, 3*time.Second, f.h.Timeout())
	assert.True(t, f.h.Cooperative())
	assert.Equal(t, timeout.Snapshot{Timeout: 3 * time.Second, Cooperative: true}, f.h.Snapshot())
	ch := make(chan error, 1)
	go func() {
		ch <- f.t.Run(context.Background(), func(ctx context.Context) error { <-ctx.Done(); return nil })
	}()
	f.blockUntil(t, 1)
	f.clk.Advance(3 * time.Second)
	recv(t, ch)
	assert.Equal(t, timeout.Snapshot{Timeout: 3 * time.Second, Cooperative: true, Timeouts: 1}, f.h.Snapshot())
}

// With no subscriber nothing is published and nothing breaks.
func TestNoBus(t *testing.T) {
	clk := clocktest.NewManualClock()
	to, err := timeout.New(timeout.Config{}, policy.Env{Clock: clk})
	require.NoError(t, err)
	ch := make(chan error, 1)
	go func() {
		ch <- to.Run(context.Background(), func(ctx context.Context) error { <-ctx.Done(); return nil })
	}()
	require.NoError(t, clk.BlockUntil(context.Background(), 1))
	clk.Advance(time.Second)
	assert.ErrorIs(t, recv(t, ch), timeout.ErrCallTimeout)
	assert.Equal(t, int64(1), timeout.NewHandle(to).Timeouts())
}

// The System clock is the default: a real (short) deadline fires.
func TestSystemClock(t *testing.T) {
	to, err := timeout.New(timeout.Config{Timeout: time.Millisecond}, policy.Env{})
	require.NoError(t, err)
	err = to.Run(context.Background(), func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	assert.ErrorIs(t, err, timeout.ErrCallTimeout)
}

// A timeout outside a bulkhead frees the caller, not the slot: the
// abandoned work keeps its slot until it really returns.
func TestAbandonedWorkKeepsInnerSlot(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	b, err := bulkhead.New(bulkhead.Config{MaxConcurrent: 1}, policy.Env{Clock: f.clk})
	require.NoError(t, err)
	links := []policy.Link[string]{timeout.Stage[string](f.t), bulkhead.Stage[string](b)}
	release := make(chan struct{})
	entered := make(chan struct{})
	ch := start(context.Background(), policy.NewNext(links, func(context.Context) (string, error) {
		close(entered)
		<-release // ignores its ctx
		return "late", nil
	}, nil))
	f.blockUntil(t, 1)
	<-entered // the work runs on a goroutine of its own: it holds the slot once it has started
	f.clk.Advance(time.Second)
	require.ErrorIs(t, recv(t, ch).err, timeout.ErrCallTimeout)
	assert.Equal(t, 1, b.InFlight(), "the abandoned work still holds its slot")

	r := run(context.Background(), policy.NewNext(links, func(context.Context) (string, error) { return "x", nil }, nil))
	assert.ErrorIs(t, r.err, bulkhead.ErrFull, "the next call finds the bulkhead full")

	close(release)
	for b.InFlight() != 0 {
		runtime.Gosched() // the abandoned goroutine frees the slot when its work returns
	}
	r = run(context.Background(), policy.NewNext(links, func(context.Context) (string, error) { return "x", nil }, nil))
	assert.NoError(t, r.err)
}
