package pipeline_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// tapLink records entry and exit of the link it wraps.
type tapLink struct {
	kind string
	l    policy.Link[int]
	rec  *record
}

type record struct {
	mu  sync.Mutex
	log []string
}

func (r *record) add(s string) {
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
}

func (t tapLink) Run(ctx context.Context, next policy.Next[int]) (int, policy.Stamp, error) {
	t.rec.add("enter " + t.kind)
	defer t.rec.add("exit " + t.kind)
	return t.l.Run(ctx, next)
}

func (t tapLink) RunAsync(ctx context.Context, next policy.AsyncNext[int]) *future.Future[int] {
	t.rec.add("enter " + t.kind)
	defer t.rec.add("exit " + t.kind)
	return t.l.RunAsync(ctx, next)
}

// calls adds each kind to a builder, by name, so tests can permute them.
// The fallback's value comes from the named configuration "zero" (see
// withZero): the tests build one pipeline name many times, so its
// instances are shared, and a shared instance takes its funcs and values
// from a named configuration.
var calls = map[string]func(*pipeline.Builder[int]){
	"fallback":      func(b *pipeline.Builder[int]) { b.Fallback(func(c *fallback.Config) { c.BaseConfig = "zero" }) },
	"retry":         func(b *pipeline.Builder[int]) { b.Retry(nil) },
	"breaker":       func(b *pipeline.Builder[int]) { b.Breaker(nil) },
	"hedge":         func(b *pipeline.Builder[int]) { b.Hedge(nil) },
	"ratelimit":     func(b *pipeline.Builder[int]) { b.RateLimit(nil) },
	"adaptivelimit": func(b *pipeline.Builder[int]) { b.AdaptiveLimit(nil) },
	"timeout":       func(b *pipeline.Builder[int]) { b.Timeout(nil) },
	"bulkhead":      func(b *pipeline.Builder[int]) { b.Bulkhead(nil) },
	"custom":        func(b *pipeline.Builder[int]) { b.Use(noop{}) },
}

// withZero defines the fallback configuration "zero" that calls uses.
var withZero = r4c.WithFallbackConfig("zero", fallback.Return(0))

// fixedOrder is the documented order, outermost first.
var fixedOrder = []string{"fallback", "retry", "breaker", "hedge", "ratelimit", "adaptivelimit", "timeout", "bulkhead", "custom"}

func permutations(s []string, emit func([]string)) {
	var rec func(k int)
	rec = func(k int) {
		if k == len(s) {
			emit(s)
			return
		}
		for i := k; i < len(s); i++ {
			s[k], s[i] = s[i], s[k]
			rec(k + 1)
			s[k], s[i] = s[i], s[k]
		}
	}
	rec(0)
}

func expectedLog(order []string) []string {
	var want []string
	for _, k := range order {
		want = append(want, "enter "+k)
	}
	want = append(want, "call")
	for i := len(order) - 1; i >= 0; i-- {
		want = append(want, "exit "+order[i])
	}
	return want
}

// TestOrderIsFixedForEveryPermutation builds a pipeline for every order of
// the builder calls and checks that a call enters and leaves the policies
// in the fixed order, and that the async path has the same order.
func TestOrderIsFixedForEveryPermutation(t *testing.T) {
	clk := clocktest.NewManualClock()
	// One registry: every build resolves the same instances, so the test
	// measures placement, not construction. The rate limit is wide enough
	// for every call.
	reg, err := r4c.NewRegistry(r4c.WithClock(clk), withZero,
		r4c.WithRateLimitDefaults(func(c *ratelimit.Config) { c.Limit = 1 << 20; c.Burst = 1 << 20 }))
	require.NoError(t, err)
	kinds := append([]string(nil), fixedOrder...)
	n, checked := 0, 0
	permutations(kinds, func(perm []string) {
		n++
		// The race detector adds nothing to an ordering test and makes
		// all 9! builds slow: under it, every 11th permutation is checked.
		if raceEnabled && n%11 != 1 {
			return
		}
		checked++
		rec := &record{}
		b := pipeline.NewBuilder[int](reg, "order")
		pipeline.SetTap(b, func(kind string, l policy.Link[int]) policy.Link[int] { return tapLink{kind, l, rec} })
		for _, k := range perm {
			calls[k](b)
		}
		p, err := b.Build()
		require.NoError(t, err)
		if n == 1 || n%997 == 0 {
			assert.Equal(t, fixedOrder, p.Policies(), "order of %v", perm)
		}
		v, err := p.Execute(func() (int, error) { rec.add("call"); return 1, nil })
		require.NoError(t, err)
		require.Equal(t, 1, v)
		require.Equal(t, expectedLog(fixedOrder), rec.log, "builder calls in the order %v", perm)
	})
	assert.Equal(t, 362880, n)
	if !raceEnabled {
		assert.Equal(t, n, checked)
	}
}

func TestAsyncOrderMatchesSyncOrder(t *testing.T) {
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(r4c.WithClock(clk), withZero)
	require.NoError(t, err)
	rec := &record{}
	b := pipeline.NewBuilder[int](reg, "order")
	pipeline.SetTap(b, func(kind string, l policy.Link[int]) policy.Link[int] { return tapLink{kind, l, rec} })
	for i := len(fixedOrder) - 1; i >= 0; i-- {
		if fixedOrder[i] != "custom" {
			calls[fixedOrder[i]](b)
		}
	}
	p, err := b.Build()
	require.NoError(t, err)
	f := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] {
		rec.add("call")
		return future.Completed(3)
	})
	v, err := f.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 3, v)
	want := []string{}
	for _, k := range fixedOrder[:len(fixedOrder)-1] {
		want = append(want, "enter "+k)
	}
	want = append(want, "call")
	for i := len(fixedOrder) - 2; i >= 0; i-- {
		want = append(want, "exit "+fixedOrder[i])
	}
	assert.Equal(t, want, rec.log)
}
