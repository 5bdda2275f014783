package generate_test

import (
	"context"
	"testing"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/examples/generate"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
)

// The wrapper's cost over its pipeline's: Suggest (an adaptive limit, two
// parameters, two results) through the generated wrapper, against a
// hand-built twin pipeline given a capture-free function, and against a
// closure that captures the arguments (what a hand-written wrapper does
// without pipeline.Bind).

func benchReg(b *testing.B) *r4c.Registry {
	reg, err := r4c.NewRegistry()
	if err != nil {
		b.Fatal(err)
	}
	return reg
}

func BenchmarkSuggestGenerated(b *testing.B) {
	search, err := generate.NewSearchClientResilient(still{done: future.Completed("")}, benchReg(b))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = search.Suggest(ctx, "go", 2)
	}
}

func BenchmarkSuggestPipelineCaptureFree(b *testing.B) {
	p, err := pipeline.NewBuilder[generate.SearchClientSuggestResult](benchReg(b), "twin").AdaptiveLimit(nil).Build()
	if err != nil {
		b.Fatal(err)
	}
	fn := func(context.Context) (generate.SearchClientSuggestResult, error) {
		return generate.SearchClientSuggestResult{R0: titles, R1: true}, nil
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = p.ExecuteContext(ctx, fn)
	}
}

func BenchmarkSuggestPipelineCapturing(b *testing.B) {
	p, err := pipeline.NewBuilder[generate.SearchClientSuggestResult](benchReg(b), "twin").AdaptiveLimit(nil).Build()
	if err != nil {
		b.Fatal(err)
	}
	var d generate.SearchClient = still{}
	ctx := context.Background()
	prefix, limit := "go", 2
	b.ReportAllocs()
	for b.Loop() {
		_, _ = p.ExecuteContext(ctx, func(ctx context.Context) (generate.SearchClientSuggestResult, error) {
			r0, r1, err := d.Suggest(ctx, prefix, limit)
			return generate.SearchClientSuggestResult{R0: r0, R1: r1}, err
		})
	}
}
