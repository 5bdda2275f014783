// Package generic has generic interfaces and generic result types.
package generic

import (
	"context"

	"github.com/resilience4cata/r4c/future"
)

type Page[T any] struct {
	Items []T
	Next  string
}

type Item struct{ ID int }

// Store is generic: the wrapper is too.
//
//r4c:adaptiveLimit
type Store[K comparable, V any] interface {
	Get(ctx context.Context, key K) (V, error)
	GetMany(ctx context.Context, keys ...K) (map[K]V, int, error)
	List(ctx context.Context, after K, n int) (Page[V], error)
	Watch(key K) *future.Future[V]
}

// Catalogue returns instantiated generic types.
//
//r4c:timeout 1s
type Catalogue interface {
	Page(ctx context.Context, n int) (Page[Item], error)
	Pages(ctx context.Context) (map[string]Page[Item], []*Page[Item], error)
	Later(ctx context.Context) *future.Future[Page[Item]]
}
