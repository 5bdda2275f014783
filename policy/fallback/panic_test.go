package fallback_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/fallback"
)

var errHandled = errors.New("handled")

func panicOf(fn func()) (p any) {
	defer func() { p = recover() }()
	fn()
	return nil
}

// A HandleIf or Func that panics: the call fails with the error being
// handled (async), a Func's panic counts in FuncFailures, and the panic goes
// on after the returned future completed.
func TestPanickingHandleIfOrFunc(t *testing.T) {
	for _, where := range []string{"HandleIf", "Func"} {
		t.Run(where, func(t *testing.T) {
			cfg := fallback.Config{HandleOn: []error{}}
			cfg.HandleIf = func(error) bool {
				if where == "HandleIf" {
					panic(where)
				}
				return true
			}
			cfg.Func = func(context.Context, error) (any, error) { panic("Func") }
			f, err := fallback.New(cfg, policy.Env{})
			require.NoError(t, err)
			st, err := fallback.Stage[int](f)
			require.NoError(t, err)

			// Sync: the panic goes on.
			got := panicOf(func() {
				_, _, _ = st.Run(context.Background(), policy.NewNext[int](nil, func(context.Context) (int, error) { return 0, errHandled }, nil))
			})
			assert.Equal(t, where, got)

			// Async: the returned future fails with the handled error first.
			pr := future.NewPromise[int]()
			out := st.RunAsync(context.Background(), policy.NewAsyncNext[int](nil, func(context.Context) *future.Future[int] { return pr.Future() }))
			got = panicOf(func() { pr.Fail(errHandled) })
			assert.Equal(t, where, got)
			select {
			case <-out.Done():
			default:
				t.Fatal("the returned future never completed")
			}
			_, err = out.Get(context.Background())
			assert.Same(t, errHandled, err)

			s := f.Handle().Snapshot()
			assert.Equal(t, int64(2), s.Calls)
			if where == "Func" {
				assert.Equal(t, int64(2), s.Handled)
				assert.Equal(t, int64(2), s.FuncFailures, "a panicking Func is a failure")
			} else {
				assert.Zero(t, s.Handled)
				assert.Zero(t, s.FuncFailures)
			}
		})
	}
}
