// Package generate shows cmd/r4cgen, r4c's go generate tool: the
// interfaces of this file declare their policies in //r4c: directives, and
// the files *_r4c.go, written by the go:generate line below, implement
// them by calling a delegate through one pipeline per method. See
// docs/generate.md.
package generate

import (
	"context"

	"github.com/resilience4cata/r4c/future"
)

//go:generate go run github.com/resilience4cata/r4c/cmd/r4cgen -type SearchClient,OrderClient

// SearchClient searches a catalogue. Every method gets its own adaptive
// limit (the directive on the interface), with the id
// generate.SearchClient.<Method>.
//
//r4c:adaptiveLimit
type SearchClient interface {
	// Search returns the titles that match query, within 2 s.
	//
	//r4c:timeout 2s
	Search(ctx context.Context, query string) ([]string, error)

	// Suggest returns at most limit completions of prefix, and whether
	// there were more.
	Suggest(ctx context.Context, prefix string, limit int) ([]string, bool, error)
}

// OrderClient places and cancels orders, as in the reference page's
// examples.
type OrderClient interface {
	// Place places an order. Its limit is shared by name with every method
	// that says name=orders, and a timeout inside it is a drop: the limit
	// backs off.
	//
	//r4c:adaptiveLimit name=orders initialLimit=10 maxLimit=100 window=500ms
	//r4c:timeout 2s
	Place(ctx context.Context, order string) (string, error)

	// Cancel cancels an order under an AIMD limit of its own, retried
	// once more after a failure.
	//
	//r4c:retry maxAttempts=2 wait=100ms
	//r4c:adaptiveLimit name=orders-aimd algorithm=aimd initialLimit=10
	Cancel(ctx context.Context, order string) error

	// PlaceAsync places an order asynchronously: a call holds its slot
	// until its future completes.
	//
	//r4c:adaptiveLimit name=orders-async initialLimit=2
	PlaceAsync(order string) *future.Future[string]
}
