package policy_test

import (
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

func panicOf(fn func()) (p any) {
	defer func() { p = recover() }()
	fn()
	return nil
}

func done[T any](f *future.Future[T]) bool {
	select {
	case <-f.Done():
		return true
	default:
		return false
	}
}

func TestForwardRunsEveryStepThenCompletes(t *testing.T) {
	inner := future.NewPromise[int]()
	var order []string
	f := policy.Forward(inner.Future(),
		func(o policy.Outcome[int]) policy.Outcome[int] { order = append(order, "judge"); panic("judge") },
		func(o policy.Outcome[int]) policy.Outcome[int] {
			order = append(order, "book")
			assert.True(t, o.Panicked, "the bookkeeping learns that the judge panicked")
			return o
		},
		func(o policy.Outcome[int]) policy.Outcome[int] { order = append(order, "user"); panic("user") },
	)
	f.OnComplete(func(v int, err error) { order = append(order, "callback"); panic("callback") })
	got := panicOf(func() { inner.Complete(3) })
	assert.Equal(t, "judge", got, "the first panic goes on")
	assert.Equal(t, []string{"judge", "book", "user", "callback"}, order)
	require.True(t, done(f))
	v, err := f.Get(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 3, v, "the inner outcome as the steps left it")
}

func TestForwardStepsMayReplaceOrDropTheOutcome(t *testing.T) {
	errInner := errors.New("inner")
	inner := future.NewPromise[int]()
	f := policy.Forward(inner.Future(), func(o policy.Outcome[int]) policy.Outcome[int] {
		assert.Same(t, errInner, o.Err)
		o.V, o.Err = 9, nil
		return o
	})
	inner.Fail(errInner)
	v, err := f.Get(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 9, v)

	// Dropped: the stage completed its promise some other way.
	pr := future.NewPromise[int]()
	inner = future.NewPromise[int]()
	f = policy.ForwardTo(pr, inner.Future(), func(o policy.Outcome[int]) policy.Outcome[int] { o.Dropped = true; return o })
	assert.Same(t, pr.Future(), f)
	inner.Complete(1)
	assert.False(t, done(f), "not forwarded")
	pr.Fail(errInner)
	_, err = f.Get(t.Context())
	assert.Same(t, errInner, err)
}

func TestForwardCancelCancelsInner(t *testing.T) {
	inner := future.NewPromise[int]()
	stepped := false
	f := policy.Forward(inner.Future(), func(o policy.Outcome[int]) policy.Outcome[int] {
		stepped = true
		assert.ErrorIs(t, o.Err, future.ErrCancelled)
		return o
	})
	assert.True(t, f.Cancel())
	assert.True(t, done(inner.Future()), "the inner future is cancelled")
	assert.True(t, stepped, "the steps ran for the cancelled inner future")
}

// A step that calls runtime.Goexit cannot be stopped: the steps after it
// and the completion still run before the goroutine exits.
func TestForwardGoexitStillCompletes(t *testing.T) {
	inner := future.NewPromise[int]()
	later := false
	f := policy.Forward(inner.Future(),
		func(o policy.Outcome[int]) policy.Outcome[int] { runtime.Goexit(); return o },
		func(o policy.Outcome[int]) policy.Outcome[int] { later = true; return o },
	)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		inner.Complete(4)
	}()
	wg.Wait()
	assert.True(t, later)
	require.True(t, done(f))
	v, err := f.Get(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 4, v)
}

// More steps than Forward keeps inline, and a verdict passed from one step
// to the next.
func TestForwardManySteps(t *testing.T) {
	inner := future.NewPromise[int]()
	var seen []int
	steps := make([]policy.Step[int], 6)
	for i := range steps {
		steps[i] = func(o policy.Outcome[int]) policy.Outcome[int] {
			seen = append(seen, o.Verdict)
			o.Verdict++
			o.V += 10
			return o
		}
	}
	f := policy.Forward(inner.Future(), steps...)
	inner.Complete(1)
	v, err := f.Get(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 61, v)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, seen)
}
