package typecheck

import "context"

type Client interface {
	//r4c:retry 2
	Get(ctx context.Context) (Missing, error)
}
