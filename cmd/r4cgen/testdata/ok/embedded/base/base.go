// Package base declares an interface that another package embeds.
package base

import "context"

// Store is embedded by package embedded; its type-level directive applies
// to its methods wherever it is embedded.
//
//r4c:retry maxAttempts=2
type Store interface {
	// Get is a method of another package, with a directive of its own.
	//
	//r4c:timeout 500ms
	Get(ctx context.Context, key string) ([]byte, error)
	Put(ctx context.Context, key string, value []byte) error
}
