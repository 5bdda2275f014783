package breaker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/policy/breaker"
)

func timeRig(t *testing.T) *rig {
	// 10s kept as 20 buckets of 500ms.
	return newRig(t, breaker.Config{WindowType: breaker.TimeBased, WindowDuration: 10 * time.Second, MinimumCalls: 4})
}

func TestTimeWindowOpens(t *testing.T) {
	g := timeRig(t)
	g.fail(2)
	g.clk.Advance(9 * time.Second)
	g.succeed(1)
	assert.Equal(t, breaker.StateClosed, g.h.State())
	s := g.h.Snapshot()
	assert.Equal(t, 3, s.BufferedCalls)
	assert.Equal(t, -1.0, s.FailureRate)
	g.succeed(1) // 2 of 4 within 10s
	assert.Equal(t, breaker.StateOpen, g.h.State())
}

func TestTimeWindowForgetsOldCalls(t *testing.T) {
	g := timeRig(t)
	g.fail(2)
	g.clk.Advance(10*time.Second - 1)
	assert.Equal(t, 2, g.h.Snapshot().BufferedCalls, "still within the window")
	g.clk.Advance(1)
	assert.Equal(t, 0, g.h.Snapshot().BufferedCalls, "the first bucket has left")
	g.succeed(2)
	g.fail(1)
	assert.Equal(t, breaker.StateClosed, g.h.State(), "3 calls only")
	g.succeed(1) // 1 of 4
	assert.Equal(t, breaker.StateClosed, g.h.State())
	assert.Equal(t, 0.25, g.h.Snapshot().FailureRate)
	assert.EqualValues(t, 6, g.h.Snapshot().Calls)
}

func TestTimeWindowBuckets(t *testing.T) {
	g := timeRig(t)
	g.fail(1) // bucket [0, 500ms)
	g.clk.Advance(400 * time.Millisecond)
	g.fail(1) // same bucket
	g.clk.Advance(200 * time.Millisecond)
	g.fail(1) // bucket [500ms, 1s)
	// At 10.499s the first bucket is gone, the second is not.
	g.clk.Advance(10*time.Second - 600*time.Millisecond + 499*time.Millisecond)
	assert.Equal(t, 1, g.h.Snapshot().BufferedCalls)
	g.clk.Advance(time.Millisecond)
	assert.Equal(t, 0, g.h.Snapshot().BufferedCalls)
}

func TestTimeWindowLongQuiet(t *testing.T) {
	g := timeRig(t)
	g.fail(3)
	g.clk.Advance(time.Hour)
	g.fail(1)
	s := g.h.Snapshot()
	assert.Equal(t, 1, s.BufferedCalls)
	assert.Equal(t, breaker.StateClosed, s.State)
}

func TestTimeWindowSlowCalls(t *testing.T) {
	g := newRig(t, breaker.Config{WindowType: breaker.TimeBased, WindowDuration: time.Minute, MinimumCalls: 2,
		SlowCallDuration: time.Second, SlowCallRateThreshold: 0.5})
	g.call(0, nil)
	g.call(2*time.Second, nil)
	assert.Equal(t, breaker.StateOpen, g.h.State())
}
