package collision

import "context"

type ClientResilient struct{}

type clientCallArgs struct{}

type Client interface {
	//r4c:retry 2
	Call(ctx context.Context, a, b string) (string, error)
	//r4c:retry 2
	CallResult(ctx context.Context) (int, int, error)
}

// ClientCall's Result and Client's CallResult would both need
// ClientCallResultResult.
type ClientCall interface {
	//r4c:retry 2
	Result(ctx context.Context) (int, int, error)
}
