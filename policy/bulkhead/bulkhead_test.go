package bulkhead_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigDefaults(t *testing.T) {
	c := bulkhead.Config{}.WithDefaults()
	assert.Equal(t, 25, c.MaxConcurrent)
	assert.Zero(t, c.MaxWait)
	assert.NoError(t, c.Validate())
	c = bulkhead.Config{MaxConcurrent: 3, MaxWait: time.Second}.WithDefaults()
	assert.Equal(t, 3, c.MaxConcurrent)
	assert.Equal(t, time.Second, c.MaxWait)
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		cfg   bulkhead.Config
		key   string
		value string
		class policy.Class
	}{
		{bulkhead.Config{MaxConcurrent: -1}, "maxConcurrent", "-1", policy.ClassBound},
		{bulkhead.Config{MaxWait: -time.Millisecond}, "maxWait", "-1ms", policy.ClassDuration},
	}
	for _, c := range cases {
		_, err := bulkhead.New(c.cfg, policy.Env{})
		var fe *policy.FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, c.key, fe.Key)
		assert.Equal(t, c.value, fe.Value)
		assert.Equal(t, c.class, fe.Class)
		assert.Equal(t, err, error(fe))
	}
	var fe *policy.FieldError
	require.ErrorAs(t, bulkhead.Config{}.Validate(), &fe, "Validate checks final values")
	assert.Equal(t, "maxConcurrent", fe.Key)
}

func TestFullError(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1})
	require.True(t, f.b.TryAcquire())
	defer f.b.Release()
	err := f.b.Acquire(context.Background())
	assert.ErrorIs(t, err, bulkhead.ErrFull)
	assert.ErrorIs(t, err, policy.ErrBulkheadFull)
	assert.ErrorIs(t, err, policy.ErrRejected)
	var be *bulkhead.BulkheadFullError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, "db", be.InstanceID())
	assert.Equal(t, "r4c: bulkhead full: 1 calls in flight (bulkhead db)", err.Error())
	assert.Same(t, be, f.b.Acquire(context.Background()), "preallocated")
	assert.False(t, policy.CallerCancelled(context.Background(), err))

	b, _ := bulkhead.New(bulkhead.Config{MaxConcurrent: 2}, policy.Env{})
	b.TryAcquire()
	b.TryAcquire()
	assert.Equal(t, "r4c: bulkhead full: 2 calls in flight", b.Acquire(context.Background()).Error())
}

func TestTryAcquireRelease(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 2})
	assert.True(t, f.b.TryAcquire())
	assert.True(t, f.b.TryAcquire())
	assert.Equal(t, 2, f.b.InFlight())
	assert.False(t, f.b.TryAcquire())
	assert.Equal(t, int64(1), f.h.Snapshot().Rejections)
	f.b.Release()
	assert.Equal(t, 1, f.b.InFlight())
	assert.True(t, f.b.TryAcquire())
	f.b.Release()
	f.b.Release()
	assert.Zero(t, f.b.InFlight())
	assert.PanicsWithValue(t, "bulkhead: released more than held", f.b.Release)
	assert.Zero(t, f.b.InFlight(), "a bad Release changes nothing")
	assert.True(t, f.b.TryAcquire())
	f.b.Release()
}

func TestStageFailFast(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 2})
	a1, a2 := launch(f.st, 1), launch(f.st, 2)
	recv(t, a1.entered)
	recv(t, a2.entered)
	assert.Equal(t, 2, f.h.InFlight())

	called := false
	_, end, err := policy.NewNext([]policy.Link[string]{f.st}, func(context.Context) (string, error) {
		called = true
		return "", nil
	}, nil).Run(context.Background())
	var be *bulkhead.BulkheadFullError
	require.ErrorAs(t, err, &be)
	assert.False(t, called, "a rejected call is not called")
	assert.False(t, end.OK())
	assert.Equal(t, []events.Event{events.CallRejected{Policy: "bulkhead", Instance: "db", Err: be}}, f.rec.All())
	assert.Equal(t, bulkhead.Snapshot{MaxConcurrent: 2, InFlight: 2, Rejections: 1}, f.h.Snapshot())

	assert.Equal(t, outcome{}, a1.finish(t, false))
	assert.Equal(t, 1, f.h.InFlight())
	assert.Equal(t, outcome{panicked: true}, a2.finish(t, true), "the panic goes on")
	assert.Zero(t, f.h.InFlight(), "a panicking call frees its slot")
	assert.Zero(t, f.clk.Pending())
}

func TestStagePassesReadings(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1})
	p := &probe{end: policy.Stamp(11)}
	v, end, err := policy.NewNext([]policy.Link[string]{f.st, p}, func(context.Context) (string, error) {
		return "ok", nil
	}, nil).WithStart(7).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "ok", v)
	assert.Equal(t, policy.Stamp(7), p.start)
	assert.Equal(t, policy.Stamp(11), end)
	assert.Zero(t, f.h.InFlight())
	assert.Empty(t, f.rec.All(), "admitted calls publish nothing")
}

func TestWaitForSlot(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Second})
	require.True(t, f.b.TryAcquire())

	p := &probe{end: policy.NoStamp}
	res := make(chan error, 1)
	go func() {
		_, _, err := policy.NewNext([]policy.Link[string]{f.st, p}, func(context.Context) (string, error) {
			return "ok", nil
		}, nil).WithStart(7).Run(context.Background())
		res <- err
	}()
	f.blockUntil(t, 1) // the waiter armed its MaxWait timer: it is queued
	assert.Equal(t, 1, f.h.Waiting())
	assert.False(t, f.b.TryAcquire(), "no barging while a call waits")
	f.clk.Advance(999 * time.Millisecond)
	assert.Len(t, res, 0)
	f.b.Release() // straight to the waiter
	require.NoError(t, recv(t, res))
	assert.False(t, p.start.OK(), "after a wait the stale start reading is dropped")
	assert.Zero(t, f.h.Waiting())
	assert.Zero(t, f.h.InFlight())
	assert.Zero(t, f.clk.Pending(), "the wait's timer is stopped")
	assert.Equal(t, int64(1), f.h.Snapshot().Rejections, "only the TryAcquire above")
}

func TestWaitTimesOut(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Second})
	require.True(t, f.b.TryAcquire())
	res := make(chan error, 1)
	go func() { res <- f.b.Acquire(context.Background()) }()
	f.blockUntil(t, 1)
	f.clk.Advance(time.Second)
	err := recv(t, res)
	var be *bulkhead.BulkheadFullError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, bulkhead.Snapshot{MaxConcurrent: 1, MaxWait: time.Second, InFlight: 1, Rejections: 1}, f.h.Snapshot())
	assert.Len(t, f.rec.All(), 1)
	f.b.Release()
	assert.Zero(t, f.h.InFlight())
}

func TestWaitCancelled(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Hour})
	require.True(t, f.b.TryAcquire())
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	called := false
	go func() {
		_, _, err := policy.NewNext([]policy.Link[string]{f.st}, func(context.Context) (string, error) {
			called = true
			return "", nil
		}, nil).Run(ctx)
		res <- err
	}()
	f.blockUntil(t, 1)
	cancel()
	err := recv(t, res)
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, bulkhead.ErrFull, "cancelled, not full")
	assert.NotErrorIs(t, err, policy.ErrRejected)
	assert.True(t, policy.CallerCancelled(ctx, err))
	assert.False(t, called)
	assert.Equal(t, bulkhead.Snapshot{MaxConcurrent: 1, MaxWait: time.Hour, InFlight: 1}, f.h.Snapshot())
	assert.Empty(t, f.rec.All())
	assert.Zero(t, f.clk.Pending())

	// A done ctx does not wait at all, but a free slot is taken regardless.
	assert.ErrorIs(t, f.b.Acquire(ctx), context.Canceled)
	f.b.Release()
	assert.NoError(t, f.b.Acquire(ctx))
	f.b.Release()
}

func TestWaitersFIFO(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Hour})
	require.True(t, f.b.TryAcquire())
	var order []int
	var mu sync.Mutex
	actors := make([]*actor, 4)
	for i := range actors {
		actors[i] = launch(f.st, i)
		f.blockUntil(t, i+1) // queued before the next one starts
	}
	assert.Equal(t, 4, f.h.Waiting())
	f.b.Release()
	for range actors {
		// exactly one actor got the slot: find it, let it finish, which
		// hands the slot to the next
		var got *actor
		for ; got == nil; runtime.Gosched() {
			for _, a := range actors {
				select {
				case <-a.entered:
					if !contains(order, a.id) {
						got = a
					}
				default:
				}
			}
		}
		mu.Lock()
		order = append(order, got.id)
		mu.Unlock()
		require.NoError(t, got.finish(t, false).err)
	}
	assert.Equal(t, []int{0, 1, 2, 3}, order)
	assert.Zero(t, f.h.InFlight())
	assert.Zero(t, f.h.Waiting())
	assert.Zero(t, f.clk.Pending())
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// A waiter that gives up leaves the queue; the ones behind it keep their
// places.
func TestWaiterLeavesQueue(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Hour})
	require.True(t, f.b.TryAcquire())
	a0 := launch(f.st, 0)
	f.blockUntil(t, 1)
	a1 := launch(f.st, 1)
	f.blockUntil(t, 2)
	a2 := launch(f.st, 2)
	f.blockUntil(t, 3)
	a1.cancel()
	assert.ErrorIs(t, recv(t, a1.result).err, context.Canceled)
	assert.Equal(t, 2, f.h.Waiting())
	f.b.Release()
	recv(t, a0.entered)
	a0.finish(t, false)
	recv(t, a2.entered)
	a2.finish(t, false)
	assert.Zero(t, f.h.InFlight())
}

// The race between a waiter's cancellation and a Release handing it the
// slot. With one P the test goroutine does both before the parked waiter
// runs again. A parked select resolves on whichever channel woke it first:
//   - cancel, then release: the waiter has chosen its ctx, but it is still
//     queued, so the release hands it the slot anyway; when it runs it
//     finds the slot and must pass it on (the giveUp path);
//   - release, then cancel: the waiter got its slot first, but if its ctx
//     is done by the time it runs, it gives the slot back and returns
//     ctx.Err() (it re-checks its ctx once handed a slot, as
//     x/sync/semaphore does); if it ran before the cancel, it keeps it.
//
// In both, no slot is lost or made up.
func TestCancelRacesRelease(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Hour})
	for i := range 100 {
		cancelFirst := i%2 == 0
		require.True(t, f.b.TryAcquire())
		ctx, cancel := context.WithCancel(context.Background())
		res := make(chan error, 1)
		go func() { res <- f.b.Acquire(ctx) }()
		f.blockUntil(t, 1)
		if cancelFirst {
			cancel()
			f.b.Release()
		} else {
			f.b.Release()
			cancel()
		}
		err := recv(t, res)
		if cancelFirst {
			require.ErrorIs(t, err, context.Canceled, "round %d", i)
			require.Zero(t, f.b.InFlight(), "round %d: the slot handed to a cancelled waiter came back", i)
		} else if err == nil {
			require.Equal(t, 1, f.b.InFlight(), "round %d: the waiter holds the slot", i)
			f.b.Release()
		} else {
			require.ErrorIs(t, err, context.Canceled, "round %d", i)
			require.Zero(t, f.b.InFlight(), "round %d: a waiter that saw its ctx done gave the slot back", i)
		}
		require.Zero(t, f.b.InFlight(), "round %d", i)
		require.Zero(t, f.b.Waiting(), "round %d", i)
		require.Zero(t, f.clk.Pending(), "round %d", i)
	}
}

// A slot freed by the lock-free Release after a caller failed to take one
// but before it queued (so Release saw nobody waiting) still reaches it:
// the caller looks for free slots once queued.
func TestReleaseBeforeQueue(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Second})
	require.True(t, f.b.TryAcquire())
	bulkhead.SetTestHookBeforeQueue(func() { f.b.Release() })
	defer bulkhead.SetTestHookBeforeQueue(nil)
	// Were the slot lost, the caller would wait out MaxWait: move the clock
	// if it ever arms its timer.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if f.clk.BlockUntil(ctx, 1) == nil {
			f.clk.Advance(time.Second)
		}
	}()
	require.NoError(t, f.b.Acquire(context.Background()))
	assert.Equal(t, 1, f.b.InFlight())
	assert.Zero(t, f.b.Waiting())
	f.b.Release()
}

// The race between the lock-free Release and a caller about to queue, left
// to the scheduler: the slot reaches the waiter either way.
func TestReleaseRacesEnqueue(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Hour})
	for i := range 500 {
		require.True(t, f.b.TryAcquire())
		res := make(chan error, 1)
		go func() { res <- f.b.Acquire(context.Background()) }()
		f.b.Release()
		require.NoError(t, recv(t, res), "round %d", i) // would hang, not fail, if the slot were lost
		require.Equal(t, 1, f.b.InFlight())
		f.b.Release()
		require.Zero(t, f.b.Waiting())
	}
}

func TestDisabled(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, Disabled: true})
	for range 3 {
		assert.True(t, f.b.TryAcquire())
		assert.NoError(t, f.b.Acquire(context.Background()))
	}
	v, _, err := policy.NewNext([]policy.Link[string]{f.st}, func(context.Context) (string, error) { return "ok", nil }, nil).Run(context.Background())
	assert.NoError(t, err)
	assert.Equal(t, "ok", v)
	f.b.Release()
	assert.Zero(t, f.h.InFlight())
	assert.Zero(t, f.h.Snapshot().Rejections)
}

func TestHandle(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 3, MaxWait: time.Second})
	assert.Equal(t, 3, f.h.MaxConcurrent())
	assert.Equal(t, 3, f.b.MaxConcurrent())
	f.b.TryAcquire()
	assert.Equal(t, 1, f.h.InFlight())
	assert.Zero(t, f.h.Waiting())
	assert.Equal(t, bulkhead.Snapshot{MaxConcurrent: 3, MaxWait: time.Second, InFlight: 1}, f.h.Snapshot())
	f.b.Release()
}

func TestSystemClockDefault(t *testing.T) {
	b, err := bulkhead.New(bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Millisecond}, policy.Env{})
	require.NoError(t, err)
	require.True(t, b.TryAcquire())
	assert.ErrorIs(t, b.Acquire(context.Background()), bulkhead.ErrFull)
	b.Release()
}
