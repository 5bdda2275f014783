package pipeline_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/timeout"
)

func TestDetaches(t *testing.T) {
	reg, err := r4c.NewRegistry()
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		b    func(*pipeline.Builder[int]) *pipeline.Builder[int]
		want bool
	}{
		{"retry", func(b *pipeline.Builder[int]) *pipeline.Builder[int] { return b.Retry(nil).AdaptiveLimit(nil) }, false},
		{"cooperative", func(b *pipeline.Builder[int]) *pipeline.Builder[int] {
			return b.Timeout(func(c *timeout.Config) { c.Cooperative = true })
		}, false},
		{"detached", func(b *pipeline.Builder[int]) *pipeline.Builder[int] { return b.Timeout(nil) }, true},
		{"disabled timeout", func(b *pipeline.Builder[int]) *pipeline.Builder[int] {
			return b.Timeout(func(c *timeout.Config) { c.Disabled = true })
		}, false},
		{"hedge", func(b *pipeline.Builder[int]) *pipeline.Builder[int] { return b.Hedge(nil) }, true},
		{"disabled hedge", func(b *pipeline.Builder[int]) *pipeline.Builder[int] {
			return b.Hedge(func(c *hedge.Config) { c.Disabled = true })
		}, false},
	} {
		p, err := c.b(pipeline.NewBuilder[int](reg, "detaches-"+c.name)).Build()
		require.NoError(t, err)
		assert.Equal(t, c.want, p.Detaches(), c.name)
	}
}
