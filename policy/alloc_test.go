package policy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// passLink is a Link that only passes the call inward, reading nothing.
type passLink struct{}

func (passLink) Run(ctx context.Context, next policy.Next[int]) (int, policy.Stamp, error) {
	v, end, err := next.WithStart(1).Run(ctx)
	return v + 1, end, err
}

func (passLink) RunAsync(ctx context.Context, next policy.AsyncNext[int]) *future.Future[int] {
	return next.Call(ctx)
}

var counted = policy.Func[int](func(ctx context.Context, next policy.Next[int]) (int, error) {
	v, err := next.Call(ctx)
	if err != nil {
		return next.Call(ctx) // a retry: Next is callable again
	}
	return v, nil
})

var (
	chainLinks = []policy.Link[int]{passLink{}, policy.Wrap[int](counted), passLink{}, passLink{}}
	fnCtx      = func(context.Context) (int, error) { return 1, nil }
	fnBare     = func() (int, error) { return 1, nil }
	errBoom    = errors.New("boom")
)

func BenchmarkNextCall(b *testing.B) {
	ctx := context.Background()
	ch := policy.NewChain(chainLinks...)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = ch.Next(fnCtx, nil).Call(ctx)
	}
}

func BenchmarkBaseline(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = fnCtx(ctx)
	}
}
