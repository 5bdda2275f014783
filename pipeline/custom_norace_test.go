//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/pipeline"
)

func TestNoopPipelineAllocatesNothing(t *testing.T) {
	p, err := pipeline.NewBuilder[int](newReg(t), "noop").Use(noop{}).Use(noop{}).Use(noop{}).Build()
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(1000, func() {
		if v, err := p.Execute(ok); v != 42 || err != nil {
			t.Fatal(v, err)
		}
	})
	assert.Zero(t, allocs)
	ctxFn := func(ctx context.Context) (int, error) { return 1, nil }
	allocs = testing.AllocsPerRun(1000, func() { _, _ = p.ExecuteContext(context.Background(), ctxFn) })
	assert.Zero(t, allocs)
}
