package twice

import "context"

type Base interface {
	//r4c:timeout 1s
	Get(ctx context.Context) (string, error)
}

// Client declares Get again with directives of its own.
type Client interface {
	Base
	//r4c:timeout 2s
	Get(ctx context.Context) (string, error)
}
