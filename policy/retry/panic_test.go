package retry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy/retry"
)

var errAttempt = errors.New("attempt failed")

func panicOf(fn func()) (p any) {
	defer func() { p = recover() }()
	fn()
	return nil
}

// A predicate, RetryIfResult or a listener of the retry event that panics
// while an attempt is judged: the call counts as a failure, the returned
// future completes with the attempt's outcome (async), and the panic goes
// on, out of the call (sync) or out of the attempt's completion (async).
func TestPanickingJudgeCountsAFailure(t *testing.T) {
	cases := []struct {
		name string
		cfg  func(*retry.Config)
		v    string
		err  error
	}{
		{"RetryIf", func(c *retry.Config) { c.RetryIf = func(error) bool { panic("RetryIf") } }, "", errAttempt},
		{"AbortIf", func(c *retry.Config) { c.AbortIf = func(error) bool { panic("AbortIf") } }, "", errAttempt},
		{"RetryIfResult", func(c *retry.Config) { c.RetryIfResult = func(any) bool { panic("RetryIfResult") } }, "v", nil},
		{"listener", func(*retry.Config) {}, "", errAttempt},
	}
	for _, c := range cases {
		for _, async := range []bool{false, true} {
			name := c.name + "/sync"
			if async {
				name = c.name + "/async"
			}
			t.Run(name, func(t *testing.T) {
				cfg := retry.Config{MaxAttempts: 3}
				cfg.SetZero("wait")
				c.cfg(&cfg)
				g := newRig(t, cfg)
				if c.name == "listener" {
					t.Cleanup(g.bus.Subscribe(func(e events.Event) {
						if _, ok := e.(events.RetryAttempt); ok {
							panic("listener")
						}
					}))
				}
				h := g.r.Handle()
				var got any
				if !async {
					got = panicOf(func() { _, _, _ = g.run(context.Background(), g.script(out{c.v, c.err})) })
				} else {
					a := newAttempts()
					f := g.async(context.Background(), a.fn)
					pr := a.next(t, 1)
					got = panicOf(func() {
						if c.err != nil {
							pr.Fail(c.err)
						} else {
							pr.Complete(c.v)
						}
					})
					require.True(t, isComplete(f), "the returned future completed")
					v, err := f.Get(context.Background())
					assert.Equal(t, c.v, v)
					assert.Equal(t, c.err, err)
					assert.Equal(t, 1, a.count(), "no second attempt")
				}
				assert.Equal(t, c.name, got, "the panic goes on")
				s := h.Snapshot()
				assert.Equal(t, int64(1), s.FailuresWithoutRetry, "a failure")
				assert.Equal(t, int64(1), s.Calls)
				assert.Zero(t, g.clk.Pending())
			})
		}
	}
}

func isComplete[T any](f *future.Future[T]) bool {
	select {
	case <-f.Done():
		return true
	default:
		return false
	}
}
