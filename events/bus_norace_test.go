//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package events_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/events"
)

func TestPublishAllocatesNothing(t *testing.T) {
	var b events.Bus
	e := ev("x") // built once: a publisher builds it only after Active
	allocs := testing.AllocsPerRun(1000, func() { b.Publish(e) })
	assert.Zero(t, allocs, "with nobody listening")

	n := 0
	stop := b.Subscribe(func(events.Event) { n++ })
	defer stop()
	allocs = testing.AllocsPerRun(1000, func() { b.Publish(e) })
	assert.Zero(t, allocs, "with a subscriber")
	assert.Positive(t, n)
}

func TestPublishContextAllocatesNothing(t *testing.T) {
	var b events.Bus
	e := ev("x")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	stop := b.SubscribeContext(func(c context.Context, _ events.Event) {
		if c == ctx {
			n++
		}
	})
	defer stop()
	allocs := testing.AllocsPerRun(1000, func() { b.PublishContext(ctx, e) })
	assert.Zero(t, allocs)
	assert.Positive(t, n)
}
