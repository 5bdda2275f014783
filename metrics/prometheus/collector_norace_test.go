//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package r4cprometheus_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
