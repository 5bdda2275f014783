//go:build !race

// The race detector allocates, so allocation counts are checked in builds
// without it (CI runs them in a step of their own).

package benbjohnson_test

import (
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clock/benbjohnson"
	"github.com/resilience4cata/r4c/pipeline"
)

// An admitted and a rejected adaptive-limit call on the adapter allocate
// nothing, on the mock as on the real clock.
func TestAdapterAllocs(t *testing.T) {
	for name, c := range map[string]clock.Clock{"mock": clock.NewMock(), "real": clock.New()} {
		reg, err := r4c.NewRegistry(r4c.WithClock(benbjohnson.New(c)))
		require.NoError(t, err)
		p, err := pipeline.NewBuilder[int](reg, "a").AdaptiveLimit(nil).Build()
		require.NoError(t, err)
		fn := func() (int, error) { return 1, nil }
		assert.Zero(t, testing.AllocsPerRun(200, func() { _, _ = p.Execute(fn) }), name)
	}
}
