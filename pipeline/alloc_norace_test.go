//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package pipeline_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/pipeline"
)

func TestSyncPathsAllocateNothing(t *testing.T) {
	reg := newReg(t)
	for name, p := range map[string]*pipeline.Pipeline[int]{
		"adaptive limit": adaptiveOnly(t, reg, 20),
		"full pipeline":  fullPipeline(t, reg),
	} {
		allocs := testing.AllocsPerRun(2000, func() {
			if _, err := p.Execute(ok); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, name)
	}
	p := adaptiveOnly(t, newReg(t), 1)
	release := occupy(t, p)
	defer release()
	allocs := testing.AllocsPerRun(2000, func() {
		if _, err := p.Execute(ok); err == nil {
			t.Fatal("not rejected")
		}
	})
	assert.Zero(t, allocs, "rejection")
}

// A subscriber does not make rejections allocate: each policy boxes its
// CallRejected event once, when it is built.
func TestRejectionWithASubscriberAllocatesNothing(t *testing.T) {
	reg := newReg(t)
	var n atomic.Int64
	stop := reg.Events().Subscribe(func(events.Event) { n.Add(1) })
	defer stop()
	p := adaptiveOnly(t, reg, 1)
	release := occupy(t, p)
	defer release()
	allocs := testing.AllocsPerRun(1000, func() { _, _ = p.Execute(ok) })
	assert.Zero(t, allocs)
	assert.Positive(t, n.Load())
}
