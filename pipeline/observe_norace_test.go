//go:build !race

package pipeline_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/events"
)

// counting is an observer that allocates nothing.
type counting struct{ n, rejected atomic.Int64 }

func (c *counting) ObserveCall(_ context.Context, call events.Call) {
	c.n.Add(1)
	if call.Outcome == events.OutcomeRejected {
		c.rejected.Add(1)
	}
}

// An observed call allocates nothing more than an unobserved one: the
// admitted and rejected paths stay at zero.
func TestObservedCallsAllocateNothing(t *testing.T) {
	reg := newReg(t)
	var c counting
	defer reg.Events().ObserveCalls(&c)()
	p := adaptiveOnly(t, reg, 20)
	full := fullPipeline(t, reg)
	assert.Zero(t, testing.AllocsPerRun(2000, func() { _, _ = p.Execute(ok) }), "adaptive limit")
	assert.Zero(t, testing.AllocsPerRun(2000, func() { _, _ = full.Execute(ok) }), "full pipeline")
	assert.Zero(t, testing.AllocsPerRun(2000, func() { _, _ = p.ExecuteContext(context.Background(), okCtx) }), "ExecuteContext")

	reg2 := newReg(t)
	defer reg2.Events().ObserveCalls(&c)()
	r := adaptiveOnly(t, reg2, 1)
	release := occupy(t, r)
	defer release()
	assert.Zero(t, testing.AllocsPerRun(2000, func() { _, _ = r.Execute(ok) }), "rejection")
	assert.Positive(t, c.rejected.Load())
	assert.Positive(t, c.n.Load())
}
