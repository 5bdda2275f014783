//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package r4cotel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	r4cotel "github.com/resilience4cata/r4c/metrics/otel"
)

func TestListenerAllocatesNothing(t *testing.T) {
	clk, reg := newRegistry(t)
	build(t, clk, reg)
	_, m := newMetrics(t, reg)
	defer m.Close()
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

// With the instruments registered on the SDK, an admitted call and a
// rejected call allocate nothing once their series exist; nor does a span
// event listener when the ctx holds no recording span.
func TestObservedCallsAllocateNothing(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	_, m := newMetrics(t, reg)
	defer m.Close()
	defer reg.Events().SubscribeContext(r4cotel.SpanEvents())()
	_, err := p.Search.Execute(ok)
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = p.Search.Execute(ok) }), "admitted")

	release := holdSlot(t, p.Search)
	defer release()
	_, _ = p.Search.Execute(ok)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = p.Search.Execute(ok) }), "rejected")
}
