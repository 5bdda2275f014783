// Package shared shares instances between methods and interfaces.
package shared

import "context"

// Orders shares one limit, named on the interface, among its methods, and
// starts every policy from the configuration "backend".
//
//r4c:adaptiveLimit name=orders initialLimit=10 maxLimit=100 window=500ms
//r4c:config backend
type Orders interface {
	Place(ctx context.Context, order string) (string, error)
	//r4c:timeout 2s
	Cancel(ctx context.Context, order string) error
	// Refund overrides the interface's configuration for its retry.
	//
	//r4c:retry config=refunds maxAttempts=2
	Refund(ctx context.Context, order string) error
}

// Audit shares "orders" with Orders, with the same values, and a retry
// named on each method.
type Audit interface {
	//r4c:adaptiveLimit name=orders initialLimit=10 maxLimit=100 window=PT0.5S config=backend
	//r4c:retry name=audit maxAttempts=3
	Record(ctx context.Context, entry string) error
	//r4c:retry name=audit maxAttempts=3
	Flush(ctx context.Context) error
}
