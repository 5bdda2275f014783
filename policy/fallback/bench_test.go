package fallback_test

import (
	"context"
	"errors"
	"testing"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/fallback"
)

var errBench = errors.New("down")

func okFn(context.Context) (int, error)  { return 1, nil }
func badFn(context.Context) (int, error) { return 0, errBench }

func benchStage(b *testing.B, opts ...func(*fallback.Config)) policy.Link[int] {
	var cfg fallback.Config
	for _, o := range opts {
		o(&cfg)
	}
	f, err := fallback.New(cfg, policy.Env{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := fallback.Stage[int](f)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func benchRun(b *testing.B, s policy.Link[int], fn func(context.Context) (int, error)) {
	b.ReportAllocs()
	ctx := context.Background()
	ch := policy.NewChain[int]()
	for b.Loop() {
		_, _, _ = s.Run(ctx, ch.Next(fn, nil))
	}
}

// BenchmarkBaseline calls the function directly.
func BenchmarkBaseline(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		_, _ = okFn(ctx)
	}
}

func BenchmarkSuccess(b *testing.B) { benchRun(b, benchStage(b, fallback.Return(7)), okFn) }

func BenchmarkHandledValue(b *testing.B) { benchRun(b, benchStage(b, fallback.Return(7)), badFn) }

func BenchmarkHandledFunc(b *testing.B) {
	benchRun(b, benchStage(b, fallback.Call(func(context.Context, error) (int, error) { return 7000, nil })), badFn)
}

func BenchmarkNotHandled(b *testing.B) {
	benchRun(b, benchStage(b, fallback.Return(7), func(c *fallback.Config) { c.HandleOn = []error{context.DeadlineExceeded} }), badFn)
}

func BenchmarkDisabled(b *testing.B) {
	benchRun(b, benchStage(b, fallback.Return(7), func(c *fallback.Config) { c.Disabled = true }), badFn)
}

// BenchmarkAsyncHandled: an asynchronous call whose future fails after
// RunAsync returned.
func BenchmarkAsyncHandled(b *testing.B) {
	b.ReportAllocs()
	s := benchStage(b, fallback.Return(7))
	ctx := context.Background()
	var pr *future.Promise[int]
	fn := func(context.Context) *future.Future[int] {
		pr = future.NewPromise[int]()
		return pr.Future()
	}
	ch := policy.NewChain[int]()
	for b.Loop() {
		f := s.RunAsync(ctx, ch.AsyncNext(fn))
		pr.Fail(errBench)
		_, _ = f.Get(ctx)
	}
}
