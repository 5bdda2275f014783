package shared

import "context"

// Orders' methods share "orders" with different values.
type Orders interface {
	//r4c:adaptiveLimit name=orders initialLimit=10
	Place(ctx context.Context, order string) (string, error)
	//r4c:adaptiveLimit name=orders
	Cancel(ctx context.Context, order string) error
	//r4c:adaptiveLimit name=orders initialLimit=10 config=backend
	Refund(ctx context.Context, order string) error
}

// Audit shares "orders" from another interface, with other values.
type Audit interface {
	//r4c:adaptiveLimit name=orders initialLimit=10 maxLimit=50
	Record(ctx context.Context) error
}

// Pinger shares a limit named on the interface, but one method disables it.
//
//r4c:adaptiveLimit name=ping
type Pinger interface {
	Ping(ctx context.Context) error
	//r4c:adaptiveLimit enabled=false
	Pong(ctx context.Context) error
}
