package hedge_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/hedge"
)

// step is what one attempt of a planned call does.
type step struct {
	wait      time.Duration
	fail      bool
	reject    bool
	ignoreCtx bool
}

type plannedCall struct {
	id    int
	n     atomic.Int32
	steps []step
}

type planKey struct{}

// callError is a failure that says which call produced it.
type callError struct{ id int }

func (e *callError) Error() string { return "planned failure" }

// planned runs the step of the current attempt of the call in ctx.
func planned(ctx context.Context) (int, error) {
	c := ctx.Value(planKey{}).(*plannedCall)
	s := c.steps[c.n.Add(1)-1]
	if s.wait > 0 {
		t := policy.System.NewTimer(s.wait) // fake time: the test runs in a synctest bubble
		if s.ignoreCtx {
			<-t.C()
		} else {
			select {
			case <-t.C():
			case <-ctx.Done():
				t.Stop()
				return 0, ctx.Err()
			}
		}
	}
	switch {
	case s.reject:
		return 0, &policy.RejectedError{Kind: "bulkhead", Err: &callError{c.id}}
	case s.fail:
		return 0, &callError{c.id}
	}
	return c.id, nil
}

// TestSharedStageKeepsCallsApart runs many concurrent calls with random
// behaviours through one stage (so call states are recycled) inside a
// synctest bubble, on the system clock, which the bubble makes fake: every
// outcome must belong to its own call, a success must come from a planned
// success, and the figures must add up.
func TestSharedStageKeepsCallsApart(t *testing.T) {
	for seed := range uint64(8) {
		synctest.Test(t, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 42))
			h, err := hedge.New(hedge.Config{Delay: time.Millisecond, MaxHedged: 3}, policy.Env{})
			require.NoError(t, err)
			stage := hedge.Stage[int](h)
			const callers, perCaller = 20, 10
			plans := make([][]*plannedCall, callers)
			for i := range plans {
				for j := range perCaller {
					c := &plannedCall{id: i*perCaller + j}
					for range 4 {
						s := step{wait: time.Duration(rng.IntN(4000)) * time.Microsecond, ignoreCtx: rng.IntN(4) == 0}
						switch rng.IntN(6) {
						case 0:
							s.fail = true
						case 1:
							s.reject = true
						}
						c.steps = append(c.steps, s)
					}
					plans[i] = append(plans[i], c)
				}
			}
			var wg sync.WaitGroup
			var wins atomic.Int32
			for i := range callers {
				wg.Go(func() {
					for _, c := range plans[i] {
						ctx := context.WithValue(context.Background(), planKey{}, c)
						v, _, err := stage.Run(ctx, policy.NewNext[int](nil, planned, nil))
						started := int(c.n.Load())
						if err == nil {
							wins.Add(1)
							assert.Equal(t, c.id, v, "a call got another call's value")
							ok := false
							for _, s := range c.steps[:started] {
								ok = ok || (!s.fail && !s.reject)
							}
							assert.True(t, ok, "a success that no attempt planned")
							continue
						}
						var ce *callError
						if assert.True(t, errors.As(err, &ce), "unexpected error %v", err) {
							assert.Equal(t, c.id, ce.id, "a call got another call's error")
						}
					}
				})
			}
			wg.Wait()
			// Let losers that ignore their ctx finish (fake time: instant).
			<-policy.System.NewTimer(10 * time.Millisecond).C()
			s := h.Handle().Snapshot()
			assert.Equal(t, int64(callers*perCaller), s.Calls)
			assert.LessOrEqual(t, s.HedgeWins, s.HedgesStarted)
			assert.LessOrEqual(t, s.HedgesStarted, int64(3*callers*perCaller))
			assert.Positive(t, wins.Load())
		})
	}
}
