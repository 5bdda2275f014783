// Package shapes has a method of every shape r4cgen wraps.
package shapes

import (
	"context"

	"github.com/resilience4cata/r4c/future"
)

type Hit struct{ Title string }

type Option func(*Hit)

// Shapes declares a bulkhead for every method; some add their own.
//
//r4c:bulkhead 4
type Shapes interface {
	// CtxOne: ctx first, one result.
	CtxOne(ctx context.Context, query string) (Hit, error)
	// NoCtxOne: no ctx, one result.
	NoCtxOne(query string) (Hit, error)
	// CtxNone: ctx alone.
	CtxNone(ctx context.Context) ([]Hit, error)
	// None: no parameters at all.
	None() (int, error)
	// Several results.
	Several(ctx context.Context, query string, limit int) ([]Hit, int, bool, error)
	// ErrorOnly returns only an error.
	//
	//r4c:retry 3
	ErrorOnly(ctx context.Context, id int64) error
	// Variadic alone.
	Variadic(opts ...Option) (Hit, error)
	// Variadic after others, without a ctx.
	VariadicMore(query string, opts ...Option) ([]Hit, error)
	// Future with a ctx and parameters.
	FutureCtx(ctx context.Context, query string, page int) *future.Future[[]Hit]
	// Future without a ctx or parameters.
	FutureNone() *future.Future[int]
	// Future without a ctx.
	FutureNoCtx(query string) *future.Future[Hit]
	// Unnamed parameters, and names the generated code uses itself.
	Unnamed(context.Context, string, int) (string, error)
	Reserved(r string, a int, err error, res bool, p0 string) (string, error)
	Blank(_ string, _ int) error
}

// Plain has methods without any directive: the wrapper calls the delegate
// directly.
type Plain interface {
	Direct(ctx context.Context, query string, opts ...Option) ([]Hit, error)
	//r4c:timeout 1s
	Guarded(ctx context.Context) error
}
