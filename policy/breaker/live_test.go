package breaker_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/breaker"
)

func (g *rig) configChanges() []events.ConfigChanged {
	var out []events.ConfigChanged
	for _, e := range g.events() {
		if c, ok := e.(events.ConfigChanged); ok {
			out = append(out, c)
		}
	}
	return out
}

// A lower failure threshold applies at the next evaluation: the failures
// already in the window count against it.
func TestSetFailureRateThresholdAtTheNextEvaluation(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 10, MinimumCalls: 10, FailureRateThreshold: 0.5})
	g.fail(4)
	g.succeed(5) // 9 calls, 4 failed: not evaluated yet (minimumCalls 10)
	require.NoError(t, g.h.SetFailureRateThreshold(0.3))
	assert.Equal(t, breaker.StateClosed, g.h.Snapshot().State, "no evaluation until a call is recorded")
	g.succeed(1) // 10 calls, 4 failed: 0.4 >= 0.3
	assert.Equal(t, breaker.StateOpen, g.h.Snapshot().State)
	assert.Equal(t, []string{"closed>open"}, g.changes())
	assert.Equal(t, []events.ConfigChanged{{Policy: "breaker", Instance: "db",
		Changes: []events.KeyChange{{Key: "failureRateThreshold", Old: "0.5", New: "0.3"}}}}, g.configChanges())
	assert.Equal(t, 0.3, g.h.Config().FailureRateThreshold)
}

func TestSetMinimumCallsAtTheNextEvaluation(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 10, MinimumCalls: 10, FailureRateThreshold: 0.5})
	g.fail(3)
	require.NoError(t, g.h.SetMinimumCalls(4))
	assert.Equal(t, breaker.StateClosed, g.h.Snapshot().State)
	g.succeed(1) // 4 calls, 3 failed
	assert.Equal(t, breaker.StateOpen, g.h.Snapshot().State)
}

func TestSetSlowCallSettings(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 4, MinimumCalls: 4, SlowCallRateThreshold: 1, SlowCallDuration: time.Second})
	require.NoError(t, g.call(2*time.Second, nil)) // slow at 1s
	require.NoError(t, g.h.SetSlowCallDuration(5*time.Second))
	require.NoError(t, g.call(2*time.Second, nil)) // not slow at 5s
	require.NoError(t, g.h.SetSlowCallRateThreshold(0.25))
	assert.Equal(t, 1, g.h.Snapshot().SlowCalls)
	require.NoError(t, g.call(0, nil))
	require.NoError(t, g.call(0, nil)) // 4 calls, 1 slow: 0.25 >= 0.25
	assert.Equal(t, breaker.StateOpen, g.h.Snapshot().State)
}

// openFor applies to the open stay in progress; halfOpenCalls from the
// next half-open stay; maxHalfOpenWait from the next call admitted.
func TestSetOpenForAndHalfOpen(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 2, MinimumCalls: 2, FailureRateThreshold: 0.5, OpenFor: 10 * time.Second, HalfOpenCalls: 1})
	g.fail(2)
	require.Equal(t, breaker.StateOpen, g.h.Snapshot().State)
	g.clk.Advance(3 * time.Second)
	require.NoError(t, g.h.SetOpenFor(5*time.Second))
	g.clk.Advance(2*time.Second - time.Nanosecond)
	var oe *breaker.OpenError
	require.ErrorAs(t, g.call(0, nil), &oe, "open until 5s after it opened")
	g.clk.Advance(time.Nanosecond)
	require.NoError(t, g.h.SetHalfOpenCalls(3))
	// The half-open stay begins now, with the trial calls of its time: 3.
	require.NoError(t, g.call(0, nil))
	require.NoError(t, g.call(0, nil))
	assert.Equal(t, breaker.StateHalfOpen, g.h.Snapshot().State, "3 trials, 2 done")
	require.NoError(t, g.call(0, nil))
	assert.Equal(t, breaker.StateClosed, g.h.Snapshot().State)
	assert.Equal(t, []string{"closed>open", "open>half-open", "half-open>closed"}, g.changes())

	g.fail(2)
	g.clk.Advance(5 * time.Second)
	require.NoError(t, g.h.SetHalfOpenCalls(2))
	p, err := g.b.Allow() // half-open, one trial of 2 taken
	require.NoError(t, err)
	require.NoError(t, g.h.SetMaxHalfOpenWait(time.Second))
	g.clk.Advance(time.Second)
	_, err = g.b.Allow()
	require.ErrorAs(t, err, &oe, "half-open waited its new maximum: open again")
	assert.Equal(t, breaker.StateOpen, g.h.Snapshot().State)
	g.b.Record(t.Context(), p, nil) // straddled the transition: dropped
}

func TestBreakerReconfigureRefuses(t *testing.T) {
	g := newRig(t, breaker.Config{WindowSize: 10})
	before := g.h.Snapshot()
	var fe *policy.FieldError
	require.True(t, errors.As(g.h.SetFailureRateThreshold(50), &fe))
	assert.Equal(t, policy.FieldError{Key: "failureRateThreshold", Value: "50", Rule: fe.Rule, Class: policy.ClassRange}, *fe)
	c := g.h.Config()
	c.WindowSize = 20
	c.FailureRateThreshold = 0.2
	require.True(t, errors.As(g.h.Reconfigure(c), &fe))
	assert.Equal(t, "windowSize", fe.Key)
	assert.Equal(t, "20", fe.Value)
	assert.Equal(t, policy.ClassNotLive, fe.Class)
	assert.Equal(t, before, g.h.Snapshot())
	assert.Equal(t, breaker.DefaultFailureRateThreshold, g.h.Config().FailureRateThreshold)
	assert.Empty(t, g.configChanges())
}
