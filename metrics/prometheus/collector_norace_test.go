//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package r4cprometheus_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	r4cprometheus "github.com/resilience4cata/r4c/metrics/prometheus"
)

func TestListenerAllocatesNothing(t *testing.T) {
	clk, reg := newRegistry(t)
	build(t, clk, reg)
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()
	// Boxed once, as a policy's Publish call would.
	var rejected events.Event = events.CallRejected{Policy: "adaptivelimit", Instance: "search"}
	var changed events.Event = events.LimitChanged{Instance: "search", OldLimit: 1, NewLimit: 2}
	bus := reg.Events()
	allocs := testing.AllocsPerRun(1000, func() {
		bus.Publish(rejected)
		bus.Publish(changed)
	})
	assert.Zero(t, allocs)
}

// With a Collector attached, an admitted call and a rejected call still
// allocate nothing once their series exist.
func TestObservedCallsAllocateNothing(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()
	_, err := p.Search.Execute(ok) // makes the series
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = p.Search.Execute(ok) }), "admitted")

	release := holdSlot(t, p.Search)
	defer release()
	_, _ = p.Search.Execute(ok)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = p.Search.Execute(ok) }), "rejected")
}

// WithExemplars costs an untraced call no allocation.
func TestUntracedCallsWithExemplarsAllocateNothing(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	c := r4cprometheus.NewCollector(reg, r4cprometheus.WithExemplars(traceIDs))
	defer c.Close()
	_, err := p.Search.Execute(ok)
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = p.Search.Execute(ok) }))
}
