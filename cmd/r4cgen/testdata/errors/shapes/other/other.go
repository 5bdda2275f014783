package other

import "context"

type secret struct{}

// Sealed cannot be implemented outside this package.
type Sealed interface {
	Open(ctx context.Context) error
	seal()
}

// Hidden returns a type no other package can name.
type Hidden interface {
	Get(ctx context.Context) (secret, error)
}
