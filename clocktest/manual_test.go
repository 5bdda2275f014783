package clocktest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fireLog records what fired and what the clock read at that moment.
type fireLog struct {
	mu    sync.Mutex
	names []string
	at    []time.Duration // since Start
}

func (l *fireLog) add(clk *clocktest.ManualClock, name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.names = append(l.names, name)
	l.at = append(l.at, clk.Now().Sub(clocktest.Start))
}

func (l *fireLog) snapshot() ([]string, []time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.names...), append([]time.Duration(nil), l.at...)
}

func TestNewManualClockReadsStart(t *testing.T) {
	clk := clocktest.NewManualClock()
	assert.Equal(t, time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC), clocktest.Start)
	assert.True(t, clk.Now().Equal(clocktest.Start))
	assert.Equal(t, int64(0), clk.Nanotime())
	assert.Equal(t, 0, clk.Pending())
}

func TestAdvanceMovesNowAndNanotime(t *testing.T) {
	clk := clocktest.NewManualClock()
	clk.Advance(1500 * time.Millisecond)
	assert.Equal(t, clocktest.Start.Add(1500*time.Millisecond), clk.Now())
	assert.Equal(t, int64(1500*time.Millisecond), clk.Nanotime())

	clk.Advance(1)
	assert.Equal(t, int64(1500*time.Millisecond+1), clk.Nanotime())

	clk.Advance(0)
	clk.Advance(-time.Hour) // treated as zero
	assert.Equal(t, int64(1500*time.Millisecond+1), clk.Nanotime())
	assert.Equal(t, clocktest.Start.Add(1500*time.Millisecond+1), clk.Now())
}

func TestSetForwardFiresAndBackwardDoesNot(t *testing.T) {
	clk := clocktest.NewManualClock()
	var log fireLog
	clk.AfterFunc(time.Second, func() { log.add(clk, "1s") })
	clk.AfterFunc(3*time.Second, func() { log.add(clk, "3s") })

	clk.Set(clocktest.Start.Add(2 * time.Second))
	names, at := log.snapshot()
	assert.Equal(t, []string{"1s"}, names)
	assert.Equal(t, []time.Duration{time.Second}, at)
	assert.Equal(t, int64(2*time.Second), clk.Nanotime())
	assert.Equal(t, 1, clk.Pending())

	// Back in time: Now and Nanotime follow (Nanotime goes negative), and
	// nothing fires; the armed timer keeps its instant.
	clk.Set(clocktest.Start.Add(-time.Minute))
	assert.Equal(t, clocktest.Start.Add(-time.Minute), clk.Now())
	assert.Equal(t, int64(-time.Minute), clk.Nanotime())
	names, _ = log.snapshot()
	assert.Equal(t, []string{"1s"}, names)
	assert.Equal(t, 1, clk.Pending())

	clk.Advance(time.Minute + 3*time.Second - 1)
	names, _ = log.snapshot()
	assert.Equal(t, []string{"1s"}, names, "the 3s timer fired 1ns early")
	clk.Advance(1)
	names, at = log.snapshot()
	assert.Equal(t, []string{"1s", "3s"}, names)
	assert.Equal(t, []time.Duration{time.Second, 3 * time.Second}, at)
	assert.Equal(t, 0, clk.Pending())

	// Setting the current time is a no-op.
	clk.Set(clk.Now())
	assert.Equal(t, int64(3*time.Second), clk.Nanotime())
}

func TestAdvanceFiresInDeadlineOrder(t *testing.T) {
	clk := clocktest.NewManualClock()
	var log fireLog
	for _, d := range []time.Duration{3 * time.Second, time.Second, 5 * time.Second, 2 * time.Second} {
		clk.AfterFunc(d, func() { log.add(clk, d.String()) })
	}
	tm := clk.NewTimer(1500 * time.Millisecond)
	require.Equal(t, 5, clk.Pending())

	clk.Advance(4 * time.Second)
	names, at := log.snapshot()
	assert.Equal(t, []string{"1s", "2s", "3s"}, names)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, at,
		"while a timer fires, Now reads its deadline")
	assert.Equal(t, clocktest.Start.Add(4*time.Second), clk.Now(), "after Advance, Now reads the target")
	assert.Equal(t, 1, clk.Pending())
	select {
	case got := <-tm.C():
		assert.Equal(t, clocktest.Start.Add(1500*time.Millisecond), got, "a timer sends its deadline")
	default:
		t.Fatal("timer due at 1.5s did not fire")
	}

	clk.Advance(time.Second)
	names, at = log.snapshot()
	assert.Equal(t, []string{"1s", "2s", "3s", "5s"}, names)
	assert.Equal(t, 5*time.Second, at[3])
	assert.Equal(t, 0, clk.Pending())
}

func TestEqualDeadlinesFireInArmingOrder(t *testing.T) {
	clk := clocktest.NewManualClock()
	var log fireLog
	var want []string
	for i := range 20 {
		name := fmt.Sprint(i)
		want = append(want, name)
		clk.AfterFunc(time.Second, func() { log.add(clk, name) })
	}
	// A timer armed later for an earlier instant still fires first.
	clk.AfterFunc(time.Second-1, func() { log.add(clk, "early") })
	clk.Advance(time.Second)
	names, _ := log.snapshot()
	assert.Equal(t, append([]string{"early"}, want...), names)
}

func TestEqualDeadlinesArmedAtDifferentTimesFireInArmingOrder(t *testing.T) {
	clk := clocktest.NewManualClock()
	var log fireLog
	clk.AfterFunc(2*time.Second, func() { log.add(clk, "a") })
	clk.Advance(time.Second)
	clk.AfterFunc(time.Second, func() { log.add(clk, "b") }) // same instant as a
	clk.Advance(time.Second)
	names, at := log.snapshot()
	assert.Equal(t, []string{"a", "b"}, names)
	assert.Equal(t, []time.Duration{2 * time.Second, 2 * time.Second}, at)
}

func TestAdvanceFiresTimersArmedByFiringTimers(t *testing.T) {
	clk := clocktest.NewManualClock()
	var log fireLog
	// A chain of re-arming timers, like a ticker: each fires one second
	// after the previous one, all within one Advance.
	var arm func(n int)
	arm = func(n int) {
		clk.AfterFunc(time.Second, func() {
			log.add(clk, fmt.Sprint(n))
			arm(n + 1)
		})
	}
	arm(1)
	clk.Advance(3*time.Second + 500*time.Millisecond)
	names, at := log.snapshot()
	assert.Equal(t, []string{"1", "2", "3"}, names)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, at)
	assert.Equal(t, 1, clk.Pending(), "the fourth is armed for 4s")
	clk.Advance(500 * time.Millisecond)
	names, _ = log.snapshot()
	assert.Equal(t, []string{"1", "2", "3", "4"}, names)
}

func TestNewTimer(t *testing.T) {
	clk := clocktest.NewManualClock()
	tm := clk.NewTimer(time.Second)
	assert.Equal(t, 1, clk.Pending())
	clk.Advance(time.Second - 1)
	select {
	case <-tm.C():
		t.Fatal("fired early")
	default:
	}
	clk.Advance(1)
	select {
	case got := <-tm.C():
		assert.Equal(t, clocktest.Start.Add(time.Second), got)
	default:
		t.Fatal("did not fire at its deadline")
	}
	assert.False(t, tm.Stop(), "Stop after firing reports false")
	assert.Equal(t, 0, clk.Pending())
}

func TestTimerStop(t *testing.T) {
	clk := clocktest.NewManualClock()
	tm := clk.NewTimer(time.Second)
	other := clk.NewTimer(2 * time.Second)
	require.Equal(t, 2, clk.Pending())
	assert.True(t, tm.Stop())
	assert.Equal(t, 1, clk.Pending(), "Stop releases the timer")
	assert.False(t, tm.Stop(), "a second Stop reports false")
	clk.Advance(time.Hour)
	select {
	case <-tm.C():
		t.Fatal("a stopped timer fired")
	default:
	}
	select {
	case <-other.C():
	default:
		t.Fatal("the other timer did not fire")
	}

	ran := false
	f := clk.AfterFunc(time.Second, func() { ran = true })
	assert.True(t, f.Stop())
	clk.Advance(time.Second)
	assert.False(t, ran, "a stopped AfterFunc ran")
	assert.Nil(t, f.C(), "an AfterFunc timer has no channel")
}

func TestNonPositiveDurationsFireAtOnce(t *testing.T) {
	clk := clocktest.NewManualClock()
	for _, d := range []time.Duration{0, -time.Second} {
		tm := clk.NewTimer(d)
		select {
		case got := <-tm.C():
			assert.Equal(t, clocktest.Start, got)
		default:
			t.Fatalf("NewTimer(%v) did not fire at once", d)
		}
		assert.False(t, tm.Stop())

		ran := false
		f := clk.AfterFunc(d, func() { ran = true })
		assert.True(t, ran, "AfterFunc(%v) runs f at once, on the calling goroutine", d)
		assert.False(t, f.Stop())
	}
	assert.Equal(t, 0, clk.Pending())
}

func TestBlockUntilWaitsForArmedTimers(t *testing.T) {
	clk := clocktest.NewManualClock()
	ctx := context.Background()
	require.NoError(t, clk.BlockUntil(ctx, 0), "n <= 0 is already reached")

	const sleepers = 8
	errs := make(chan error, sleepers)
	for i := range sleepers {
		go func() { errs <- policy.Sleep(ctx, clk, time.Duration(i+1)*time.Second) }()
	}
	require.NoError(t, clk.BlockUntil(ctx, sleepers))
	assert.Equal(t, sleepers, clk.Pending())

	clk.Advance(sleepers * time.Second)
	for range sleepers {
		assert.NoError(t, <-errs)
	}
	assert.Equal(t, 0, clk.Pending())
}

func TestBlockUntilCountsDeadlineContexts(t *testing.T) {
	clk := clocktest.NewManualClock()
	ready := make(chan context.Context)
	release := make(chan struct{})
	go func() {
		ctx, cancel := clk.WithDeadline(context.Background(), clk.Now().Add(time.Second))
		defer cancel()
		ready <- ctx
		<-release
	}()
	require.NoError(t, clk.BlockUntil(context.Background(), 1))
	ctx := <-ready
	clk.Advance(time.Second)
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	close(release)
}

func TestBlockUntilReturnsOnCancel(t *testing.T) {
	clk := clocktest.NewManualClock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- clk.BlockUntil(ctx, 3) }()
	clk.NewTimer(time.Second) // one of three: still waiting
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)

	// Already done: returns at once with ctx's error.
	assert.ErrorIs(t, clk.BlockUntil(ctx, 5), context.Canceled)
	// Reached: nil even though ctx is done.
	assert.NoError(t, clk.BlockUntil(ctx, 1))
}

func TestBlockUntilWakesOnEveryArming(t *testing.T) {
	clk := clocktest.NewManualClock()
	done := make(chan error, 1)
	go func() { done <- clk.BlockUntil(context.Background(), 3) }()
	for range 3 {
		select {
		case err := <-done:
			t.Fatalf("BlockUntil returned early: %v", err)
		default:
		}
		clk.NewTimer(time.Second)
	}
	assert.NoError(t, <-done)
}

func TestSleepOnManualClock(t *testing.T) {
	clk := clocktest.NewManualClock()
	ctx := context.Background()
	done := make(chan error, 1)
	go func() { done <- policy.Sleep(ctx, clk, 2*time.Second) }()
	require.NoError(t, clk.BlockUntil(ctx, 1))
	clk.Advance(2*time.Second - 1)
	select {
	case err := <-done:
		t.Fatalf("Sleep returned %v before its time", err)
	default:
	}
	clk.Advance(1)
	assert.NoError(t, <-done)
}

func TestConcurrentUse(t *testing.T) {
	// Exercised under -race: goroutines arm, stop and read the clock while
	// sleepers arm their timers and the test advances.
	clk := clocktest.NewManualClock()
	ctx := context.Background()
	const n = 16
	var sleepers, side sync.WaitGroup
	for i := range n {
		sleepers.Go(func() {
			assert.NoError(t, policy.Sleep(ctx, clk, time.Duration(i+1)*time.Millisecond))
		})
		side.Go(func() {
			tm := clk.NewTimer(time.Hour)
			_ = clk.Now()
			_ = clk.Nanotime()
			_ = clk.Pending()
			assert.True(t, tm.Stop())
		})
	}
	side.Wait() // every side timer is stopped: what is armed is sleepers
	require.NoError(t, clk.BlockUntil(ctx, n))
	for range n {
		clk.Advance(time.Millisecond)
	}
	sleepers.Wait()
	assert.Equal(t, 0, clk.Pending())
}
