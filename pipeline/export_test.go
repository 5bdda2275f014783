package pipeline

import "github.com/resilience4cata/r4c/policy"

// SetTap makes Build wrap each link with tap, for tests that watch the chain.
func SetTap[T any](b *Builder[T], tap func(kind string, l policy.Link[T]) policy.Link[T]) {
	b.tap = tap
}
