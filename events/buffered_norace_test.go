//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package events_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/events"
)

func TestBufferedListenAllocatesNothing(t *testing.T) {
	b := events.NewBuffered(1, func(events.Event) {})
	defer b.Close()
	e := ev("x")
	allocs := testing.AllocsPerRun(1000, func() { b.Listen(e) })
	assert.Zero(t, allocs)
}
