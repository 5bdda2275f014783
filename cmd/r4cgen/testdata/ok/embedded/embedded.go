// Package embedded embeds interfaces of its own, of another package and of
// the standard library.
package embedded

import (
	"context"
	"io"

	"github.com/resilience4cata/r4c/cmd/r4cgen/testdata/ok/embedded/base"
)

// Pinger is embedded below.
//
//r4c:hedge delay=50ms
type Pinger interface {
	Ping(ctx context.Context) error
}

// Health embeds Pinger, one level down.
type Health interface {
	Pinger
	//r4c:bulkhead maxConcurrent=2
	Status(ctx context.Context) (string, error)
}

// Client is the interface generated for.
//
//r4c:adaptiveLimit name=client
type Client interface {
	// The embedding line's directives apply to Store's methods.
	//
	//r4c:retry wait=10ms
	base.Store
	Health
	//r4c:bulkhead 1
	io.Closer
	interface {
		//r4c:timeout 3s
		Inline(ctx context.Context) (int, error)
	}
	// Get is declared again (identical to Store's): the first declaration
	// reached, Store's, gives its directives.
	Get(ctx context.Context, key string) ([]byte, error)
}
