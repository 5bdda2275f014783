package benbjohnson_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clock/benbjohnson"
)

func TestNanotimeFollowsTheMock(t *testing.T) {
	mock := clock.NewMock()
	mock.Set(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	clk := benbjohnson.New(mock)
	assert.Equal(t, int64(0), clk.Nanotime(), "counted from the mock's time at New")
	assert.Equal(t, mock.Now(), clk.Now())

	mock.Add(1500 * time.Millisecond)
	assert.Equal(t, int64(1500*time.Millisecond), clk.Nanotime())
	mock.Set(mock.Now().Add(-3 * time.Second))
	assert.Equal(t, int64(-1500*time.Millisecond), clk.Nanotime(), "set back: the reading goes back too")
}

func TestRealClock(t *testing.T) {
	clk := benbjohnson.New(nil)
	a := clk.Nanotime()
	b := clk.Nanotime()
	assert.GreaterOrEqual(t, b, a, "monotonic on the real clock")
	tm := clk.NewTimer(0)
	<-tm.C()
	assert.False(t, tm.Stop(), "fired already")
	ctx, cancel := clk.WithDeadline(context.Background(), clk.Now().Add(time.Hour))
	dl, ok := ctx.Deadline()
	assert.True(t, ok)
	assert.WithinDuration(t, time.Now().Add(time.Hour), dl, time.Minute)
	cancel()
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
}

func TestTimerFiresOnAdd(t *testing.T) {
	mock := clock.NewMock()
	clk := benbjohnson.New(mock)
	tm := clk.NewTimer(time.Second)
	mock.Add(time.Second - time.Nanosecond)
	select {
	case <-tm.C():
		t.Fatal("fired before its instant")
	default:
	}
	mock.Add(time.Nanosecond)
	select {
	case at := <-tm.C():
		assert.Equal(t, time.Unix(1, 0), at)
	default:
		t.Fatal("did not fire during the Add that reached it")
	}
	assert.False(t, tm.Stop())

	stopped := clk.NewTimer(time.Second)
	assert.True(t, stopped.Stop())
	mock.Add(2 * time.Second)
	select {
	case <-stopped.C():
		t.Fatal("a stopped timer fired")
	default:
	}
}

func TestDeadlineFiresOnAdd(t *testing.T) {
	mock := clock.NewMock()
	clk := benbjohnson.New(mock)
	d := mock.Now().Add(2 * time.Second)
	ctx, cancel := clk.WithDeadline(context.Background(), d)
	defer cancel()
	child, stopChild := context.WithCancel(ctx)
	defer stopChild()

	dl, ok := ctx.Deadline()
	require.True(t, ok)
	assert.Equal(t, d, dl)
	mock.Add(2*time.Second - time.Nanosecond)
	require.NoError(t, ctx.Err())
	require.NoError(t, child.Err())

	mock.Add(time.Nanosecond)
	assert.Equal(t, context.DeadlineExceeded, ctx.Err(), "done as soon as the Add returns")
	assert.Equal(t, context.DeadlineExceeded, context.Cause(ctx))
	<-ctx.Done()
	<-child.Done()
	assert.Equal(t, context.DeadlineExceeded, child.Err(), "derived contexts end with the deadline")
	assert.Equal(t, context.DeadlineExceeded, context.Cause(child))
}

func TestDeadlineDoneWakesWaiters(t *testing.T) {
	mock := clock.NewMock()
	clk := benbjohnson.New(mock)
	ctx, cancel := clk.WithDeadline(context.Background(), mock.Now().Add(time.Second))
	defer cancel()
	done := make(chan error)
	go func() {
		<-ctx.Done()
		done <- ctx.Err()
	}()
	mock.Add(time.Second)
	assert.Equal(t, context.DeadlineExceeded, <-done, "a goroutine already blocked on Done wakes")
}

func TestDeadlineCancel(t *testing.T) {
	mock := clock.NewMock()
	clk := benbjohnson.New(mock)
	ctx, cancel := clk.WithDeadline(context.Background(), mock.Now().Add(time.Second))
	ran := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { close(ran) })
	defer stop()
	cancel()
	<-ran
	assert.Equal(t, context.Canceled, ctx.Err())
	assert.Equal(t, context.Canceled, context.Cause(ctx))
	mock.Add(time.Hour)
	assert.Equal(t, context.Canceled, ctx.Err(), "the deadline after cancel changes nothing")
	cancel() // again: nothing
}

func TestDeadlineParent(t *testing.T) {
	mock := clock.NewMock()
	clk := benbjohnson.New(mock)
	why := errors.New("shutting down")

	parent, stop := context.WithCancelCause(context.Background())
	ctx, cancel := clk.WithDeadline(parent, mock.Now().Add(time.Second))
	defer cancel()
	stop(why)
	<-ctx.Done()
	assert.Equal(t, context.Canceled, ctx.Err(), "the parent's error")
	assert.Same(t, why, context.Cause(ctx), "and the parent's cause")

	// A parent done before: the copy is done from the start.
	ctx2, cancel2 := clk.WithDeadline(parent, mock.Now().Add(time.Second))
	defer cancel2()
	assert.Equal(t, context.Canceled, ctx2.Err())

	// A parent with an earlier deadline: the copy reports it, and ends there.
	early, cancelEarly := clk.WithDeadline(context.Background(), mock.Now().Add(time.Second))
	defer cancelEarly()
	late, cancelLate := clk.WithDeadline(early, mock.Now().Add(time.Hour))
	defer cancelLate()
	dl, _ := late.Deadline()
	assert.Equal(t, mock.Now().Add(time.Second), dl)
	mock.Add(time.Second)
	assert.Equal(t, context.DeadlineExceeded, late.Err())
	assert.Equal(t, context.DeadlineExceeded, context.Cause(late))
}

func TestDeadlinePassed(t *testing.T) {
	mock := clock.NewMock()
	clk := benbjohnson.New(mock)
	ctx, cancel := clk.WithDeadline(context.Background(), mock.Now())
	defer cancel()
	assert.Equal(t, context.DeadlineExceeded, ctx.Err())
	<-ctx.Done()
}

// Readers of Err race with the timer that ends the context; -race checks
// that they are synchronised (the mock's own WithDeadline is not).
func TestDeadlineConcurrentReaders(t *testing.T) {
	mock := clock.NewMock()
	clk := benbjohnson.New(mock)
	ctx, cancel := clk.WithDeadline(context.Background(), mock.Now().Add(time.Millisecond))
	defer cancel()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				_ = context.Cause(ctx)
				runtime.Gosched()
			}
		})
	}
	mock.Add(time.Millisecond)
	wg.Wait()
	assert.Equal(t, context.DeadlineExceeded, ctx.Err())
}
