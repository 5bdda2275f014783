package clocktest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clocktest"
)

// century is a real-clock timeout so long that the context package treats a
// child made with it as a plain cancellable child of its ManualClock parent.
const century = 100 * 365 * 24 * time.Hour

func isDone(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

func TestWithDeadlineFiresAtTheDeadline(t *testing.T) {
	clk := clocktest.NewManualClock()
	d := clk.Now().Add(2 * time.Second)
	ctx, cancel := clk.WithDeadline(context.Background(), d)
	defer cancel()

	got, ok := ctx.Deadline()
	assert.True(t, ok)
	assert.Equal(t, d, got)
	assert.NoError(t, ctx.Err())
	assert.NoError(t, context.Cause(ctx))
	assert.False(t, isDone(ctx))
	assert.Equal(t, 1, clk.Pending())

	clk.Advance(2*time.Second - 1)
	assert.NoError(t, ctx.Err(), "done 1ns early")
	assert.False(t, isDone(ctx))

	clk.Advance(1)
	assert.True(t, isDone(ctx), "done during the Advance that reaches the deadline")
	assert.Equal(t, context.DeadlineExceeded, ctx.Err())
	assert.Equal(t, context.DeadlineExceeded, context.Cause(ctx))
	assert.Equal(t, 0, clk.Pending(), "a fired deadline releases its timer")

	cancel() // after the deadline: changes nothing
	assert.Equal(t, context.DeadlineExceeded, ctx.Err())
	assert.Equal(t, context.DeadlineExceeded, context.Cause(ctx))
}

func TestWithDeadlineChildrenSeeDeadlineExceeded(t *testing.T) {
	clk := clocktest.NewManualClock()
	d := clk.Now().Add(time.Second)
	ctx, cancel := clk.WithDeadline(context.Background(), d)
	defer cancel()

	withCancel, cancel1 := context.WithCancel(ctx)
	defer cancel1()
	withTimeout, cancel2 := context.WithTimeout(ctx, century)
	defer cancel2()
	grandchild, cancel3 := context.WithCancel(withTimeout)
	defer cancel3()
	withValue := context.WithValue(ctx, ctxKey{}, "v")
	afterFuncRan := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { close(afterFuncRan) })
	defer stop()

	got, ok := withTimeout.Deadline()
	assert.True(t, ok)
	assert.Equal(t, d, got, "a child with a later deadline reports its parent's")

	clk.Advance(time.Second)
	// The context package's children are cancelled synchronously, on the
	// goroutine that advanced the clock.
	for name, c := range map[string]context.Context{
		"WithCancel": withCancel, "WithTimeout": withTimeout,
		"grandchild": grandchild, "WithValue": withValue,
	} {
		assert.True(t, isDone(c), name)
		assert.Equal(t, context.DeadlineExceeded, c.Err(), name)
		assert.Equal(t, context.DeadlineExceeded, context.Cause(c), name)
	}
	<-afterFuncRan // context.AfterFunc runs f on a goroutine of its own

	// A child made after the deadline is done from the start.
	late, cancel4 := context.WithCancel(ctx)
	defer cancel4()
	assert.Equal(t, context.DeadlineExceeded, late.Err())
	assert.Equal(t, context.DeadlineExceeded, context.Cause(late))
}

type ctxKey struct{}

func TestWithDeadlineKeepsParentValues(t *testing.T) {
	clk := clocktest.NewManualClock()
	parent := context.WithValue(context.Background(), ctxKey{}, "v")
	ctx, cancel := clk.WithDeadline(parent, clk.Now().Add(time.Second))
	defer cancel()
	assert.Equal(t, "v", ctx.Value(ctxKey{}))
	assert.Nil(t, ctx.Value("missing"))
	assert.Contains(t, ctx.(interface{ String() string }).String(), "clocktest.WithDeadline(2026-01-01 00:00:01")
}

func TestWithDeadlineCancelReleasesTheTimer(t *testing.T) {
	clk := clocktest.NewManualClock()
	ctx, cancel := clk.WithDeadline(context.Background(), clk.Now().Add(time.Second))
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()
	require.Equal(t, 1, clk.Pending())

	cancel()
	assert.Equal(t, 0, clk.Pending(), "cancel releases the timer")
	assert.True(t, isDone(ctx))
	assert.Equal(t, context.Canceled, ctx.Err())
	assert.Equal(t, context.Canceled, context.Cause(ctx))
	assert.Equal(t, context.Canceled, child.Err(), "children see the cancellation")

	cancel() // idempotent
	clk.Advance(time.Hour)
	assert.Equal(t, context.Canceled, ctx.Err(), "the deadline passing later changes nothing")
}

func TestWithDeadlineAlreadyExpired(t *testing.T) {
	clk := clocktest.NewManualClock()
	for name, d := range map[string]time.Time{
		"now":  clk.Now(),
		"past": clk.Now().Add(-time.Hour),
	} {
		ctx, cancel := clk.WithDeadline(context.Background(), d)
		assert.True(t, isDone(ctx), name)
		assert.Equal(t, context.DeadlineExceeded, ctx.Err(), name)
		assert.Equal(t, context.DeadlineExceeded, context.Cause(ctx), name)
		got, ok := ctx.Deadline()
		assert.True(t, ok, name)
		assert.Equal(t, d, got, name)
		assert.Equal(t, 0, clk.Pending(), "%s: no timer is armed", name)
		child, cancelChild := context.WithCancel(ctx)
		assert.Equal(t, context.DeadlineExceeded, child.Err(), name)
		cancelChild()
		cancel()
		assert.Equal(t, context.DeadlineExceeded, ctx.Err(), "%s: cancel after expiry changes nothing", name)
	}
}

func TestWithDeadlineParentCancellationPropagates(t *testing.T) {
	clk := clocktest.NewManualClock()
	parent, cancelParent := context.WithCancel(context.Background())
	ctx, cancel := clk.WithDeadline(parent, clk.Now().Add(time.Second))
	defer cancel()
	require.Equal(t, 1, clk.Pending())

	cancelParent()
	// Observable at once, as with the context package's own contexts.
	assert.Equal(t, context.Canceled, ctx.Err())
	assert.True(t, isDone(ctx))
	assert.Equal(t, 0, clk.Pending(), "a context done through its parent releases its timer")
	clk.Advance(time.Hour)
	assert.Equal(t, context.Canceled, ctx.Err(), "the parent's error stays")
}

func TestWithDeadlineParentCancellationReachesWaiters(t *testing.T) {
	clk := clocktest.NewManualClock()
	parent, cancelParent := context.WithCancel(context.Background())
	ctx, cancel := clk.WithDeadline(parent, clk.Now().Add(time.Second))
	defer cancel()
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()
	done := ctx.Done()

	cancelParent()
	<-done // closed without anyone calling Err or Done again
	<-child.Done()
	assert.Equal(t, context.Canceled, child.Err())
	assert.Equal(t, 0, clk.Pending())
}

func TestWithDeadlineParentAlreadyDone(t *testing.T) {
	clk := clocktest.NewManualClock()
	boom := errors.New("boom")
	parent, cancelParent := context.WithCancelCause(context.Background())
	cancelParent(boom)
	ctx, cancel := clk.WithDeadline(parent, clk.Now().Add(time.Second))
	defer cancel()
	assert.True(t, isDone(ctx))
	assert.Equal(t, context.Canceled, ctx.Err())
	assert.Equal(t, 0, clk.Pending())
}

func TestWithDeadlineParentDeadlineEarlier(t *testing.T) {
	clk := clocktest.NewManualClock()
	early := clk.Now().Add(time.Second)
	parent, cancelParent := clk.WithDeadline(context.Background(), early)
	defer cancelParent()
	ctx, cancel := clk.WithDeadline(parent, clk.Now().Add(time.Hour))
	defer cancel()

	got, _ := ctx.Deadline()
	assert.Equal(t, early, got, "reports the parent's earlier deadline")
	clk.Advance(time.Second)
	assert.True(t, isDone(ctx), "done during the Advance that reaches the parent's deadline")
	assert.Equal(t, context.DeadlineExceeded, ctx.Err())
	assert.Equal(t, context.DeadlineExceeded, context.Cause(ctx))
	assert.Equal(t, 0, clk.Pending())
}

func TestWithDeadlineParentDeadlineLater(t *testing.T) {
	clk := clocktest.NewManualClock()
	parent, cancelParent := clk.WithDeadline(context.Background(), clk.Now().Add(time.Hour))
	defer cancelParent()
	d := clk.Now().Add(time.Second)
	ctx, cancel := clk.WithDeadline(parent, d)
	defer cancel()
	got, _ := ctx.Deadline()
	assert.Equal(t, d, got)
	clk.Advance(time.Second)
	assert.Equal(t, context.DeadlineExceeded, ctx.Err())
	assert.NoError(t, parent.Err(), "a child's deadline does not end its parent")
	assert.Equal(t, 1, clk.Pending())
}

func TestWithDeadlineCauseStaysAfterParentIsCancelled(t *testing.T) {
	// The deadline fired first: a later cancellation of the caller's ctx
	// must not rewrite why this context ended (a timeout policy asks
	// context.Cause after the fact).
	clk := clocktest.NewManualClock()
	boom := errors.New("caller gave up")
	parent, cancelParent := context.WithCancelCause(context.Background())
	ctx, cancel := clk.WithDeadline(parent, clk.Now().Add(time.Second))
	defer cancel()
	clk.Advance(time.Second)
	cancelParent(boom)
	assert.Equal(t, context.DeadlineExceeded, ctx.Err())
	assert.Equal(t, context.DeadlineExceeded, context.Cause(ctx))
}

func TestWithDeadlineManyChildrenComeAndGo(t *testing.T) {
	// Children that are cancelled before the deadline unregister; the
	// remaining one is still cancelled by the deadline.
	clk := clocktest.NewManualClock()
	ctx, cancel := clk.WithDeadline(context.Background(), clk.Now().Add(time.Second))
	defer cancel()
	for range 100 {
		c, cc := context.WithCancel(ctx)
		cc()
		assert.Equal(t, context.Canceled, c.Err())
	}
	last, cancelLast := context.WithCancel(ctx)
	defer cancelLast()
	clk.Advance(time.Second)
	assert.Equal(t, context.DeadlineExceeded, last.Err())
}

func TestWithDeadlineWaitingGoroutine(t *testing.T) {
	// The shape of a timeout test: a goroutine waits on a deadline context;
	// the test knows it is armed through BlockUntil, then advances.
	clk := clocktest.NewManualClock()
	errc := make(chan error, 1)
	go func() {
		ctx, cancel := clk.WithDeadline(context.Background(), clk.Now().Add(3*time.Second))
		defer cancel()
		<-ctx.Done()
		errc <- context.Cause(ctx)
	}()
	require.NoError(t, clk.BlockUntil(context.Background(), 1))
	clk.Advance(3 * time.Second)
	assert.Equal(t, context.DeadlineExceeded, <-errc)
}

// A goroutine that sees the copy done sees its timer released: cancel stops
// the timer before it closes Done. (A test waits on a store call's ctx, then
// on BlockUntil for the next timer: with Done closed first, BlockUntil could
// count the deadline that was being released.) The window is a few
// instructions wide, so the test repeats the race many times.
func TestWithDeadlineDoneMeansReleased(t *testing.T) {
	clk := clocktest.NewManualClock()
	for i := range 10000 {
		ctx, cancel := clk.WithDeadline(context.Background(), clocktest.Start.Add(time.Second))
		go cancel()
		<-ctx.Done()
		if n := clk.Pending(); n != 0 {
			t.Fatalf("round %d: Done closed with %d timer(s) still armed", i, n)
		}
	}
}
