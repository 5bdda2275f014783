package shapes

import (
	"context"

	"github.com/resilience4cata/r4c/cmd/r4cgen/testdata/errors/shapes/other"
	"github.com/resilience4cata/r4c/future"
)

//r4c:retry 2
type Client interface {
	NoError(ctx context.Context) int
	NoResult(ctx context.Context)
	ErrorNotLast(ctx context.Context) (error, int)
	FutureAndError(ctx context.Context) (*future.Future[int], error)
	FutureAmongOthers(ctx context.Context) (*future.Future[int], int, error)
	other.Sealed
	other.Hidden
	Fine(ctx context.Context) error
}
