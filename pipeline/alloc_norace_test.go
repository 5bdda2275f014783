//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package pipeline_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/timeout"
)

func TestSyncPathsAllocateNothing(t *testing.T) {
	reg := newReg(t)
	for name, p := range map[string]*pipeline.Pipeline[int]{
		"adaptive limit": adaptiveOnly(t, reg, 20),
		"full pipeline":  fullPipeline(t, reg),
	} {
		allocs := testing.AllocsPerRun(2000, func() {
			if _, err := p.Execute(ok); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, name)
	}
	p := adaptiveOnly(t, newReg(t), 1)
	release := occupy(t, p)
	defer release()
	allocs := testing.AllocsPerRun(2000, func() {
		if _, err := p.Execute(ok); err == nil {
			t.Fatal("not rejected")
		}
	})
	assert.Zero(t, allocs, "rejection")
}

// A subscriber does not make rejections allocate: each policy boxes its
// CallRejected event once, when it is built.
func TestRejectionWithASubscriberAllocatesNothing(t *testing.T) {
	reg := newReg(t)
	var n atomic.Int64
	stop := reg.Events().Subscribe(func(events.Event) { n.Add(1) })
	defer stop()
	p := adaptiveOnly(t, reg, 1)
	release := occupy(t, p)
	defer release()
	allocs := testing.AllocsPerRun(1000, func() { _, _ = p.Execute(ok) })
	assert.Zero(t, allocs)
	assert.Positive(t, n.Load())
}

// A Bound adds no allocation to the synchronous paths; where a stage may
// call the function after the call (a timeout in its default mode), it adds
// exactly one: the record of the argument.
func TestBoundAllocatesNothingMore(t *testing.T) {
	reg := newReg(t)
	type two struct{ a, b int }
	fn := func(_ context.Context, x two) (int, error) { return x.a + x.b, nil }
	for name, p := range map[string]*pipeline.Pipeline[int]{
		"adaptive limit": adaptiveOnly(t, reg, 20),
		"full pipeline":  fullPipeline(t, reg),
	} {
		b := pipeline.Bind(p, fn)
		allocs := testing.AllocsPerRun(2000, func() {
			if v, err := b.ExecuteContext(context.Background(), two{1, 2}); err != nil || v != 3 {
				t.Fatal(v, err)
			}
		})
		assert.Zero(t, allocs, name)
	}
	p := adaptiveOnly(t, newReg(t), 1)
	release := occupy(t, p)
	b := pipeline.Bind(p, fn)
	allocs := testing.AllocsPerRun(2000, func() {
		if _, err := b.Execute(two{1, 2}); err == nil {
			t.Fatal("not rejected")
		}
	})
	release()
	assert.Zero(t, allocs, "rejection")

	detached, err := pipeline.NewBuilder[int](newReg(t), "detached").
		Timeout(func(c *timeout.Config) { c.Timeout = time.Minute }).Build()
	require.NoError(t, err)
	own := testing.AllocsPerRun(500, func() { _, _ = detached.Execute(ok) })
	bd := pipeline.Bind(detached, fn)
	bound := testing.AllocsPerRun(500, func() { _, _ = bd.Execute(two{1, 2}) })
	assert.Equal(t, own+1, bound, "the pipeline allocates %v itself", own)
}

// A BoundFuture allocates what ExecuteFuture allocates for a capture-free
// function, and one record more where a retry may start another attempt.
func TestBoundFutureAllocatesNothingMore(t *testing.T) {
	type two struct{ a, b int }
	done := future.Completed(3)
	fn := func(context.Context, two) *future.Future[int] { return done }
	free := func(context.Context) *future.Future[int] { return done }
	for name, tc := range map[string]struct {
		build func(*pipeline.Builder[int]) *pipeline.Builder[int]
		extra float64
	}{
		"adaptive limit": {func(b *pipeline.Builder[int]) *pipeline.Builder[int] { return b.AdaptiveLimit(nil) }, 0},
		"retry":          {func(b *pipeline.Builder[int]) *pipeline.Builder[int] { return b.AdaptiveLimit(nil).Retry(nil) }, 1},
	} {
		p, err := tc.build(pipeline.NewBuilder[int](newReg(t), "f")).Build()
		require.NoError(t, err)
		ctx := context.Background()
		own := testing.AllocsPerRun(1000, func() { _, _ = p.ExecuteFuture(ctx, free).Get(ctx) })
		b := pipeline.BindFuture(p, fn)
		bound := testing.AllocsPerRun(1000, func() { _, _ = b.ExecuteFuture(ctx, two{1, 2}).Get(ctx) })
		assert.Equal(t, own+tc.extra, bound, "%s: the pipeline allocates %v itself", name, own)
	}
}
