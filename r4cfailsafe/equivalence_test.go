package r4cfailsafe_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	fstimeout "github.com/failsafe-go/failsafe-go/timeout"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/r4cfailsafe"
)

// side is one way to run calls through an adaptive limit "search" on a
// ManualClock: an r4c pipeline, or a failsafe-go executor with the limit as
// its policy.
type side struct {
	name string
	clk  *clocktest.ManualClock
	h    *adaptivelimit.Handle
	run  func(ctx context.Context, fn func(context.Context) (string, error)) (string, error)
}

// The outcomes a held call can end with.
const (
	endSuccess = iota
	endDrop
	endFailsafeTimeout // failsafe-go's timeout error: a drop on both sides
	endError
	endCancel
	endPanic
	endCount
)

// inflight is a call admitted on one side, waiting in its function to be
// told how to end.
type inflight struct {
	end    chan int
	cancel context.CancelFunc
	done   chan error
}

// start starts a call and returns it once its function runs, or nil and
// the error if it was rejected.
func (s *side) start() (*inflight, error) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &inflight{end: make(chan int), cancel: cancel, done: make(chan error, 1)}
	entered := make(chan struct{})
	go func() {
		defer func() {
			if r := recover(); r != nil {
				c.done <- fmt.Errorf("panicked: %v", r)
			}
		}()
		_, err := s.run(ctx, func(ctx context.Context) (string, error) {
			close(entered)
			switch <-c.end {
			case endDrop:
				return "", policy.ErrCallTimeout
			case endFailsafeTimeout:
				return "", fstimeout.ErrExceeded
			case endError:
				return "", errNotFound
			case endCancel:
				cancel()
				return "", ctx.Err()
			case endPanic:
				panic("boom")
			}
			return "ok", nil
		})
		c.done <- err
	}()
	select {
	case <-entered:
		return c, nil
	case err := <-c.done:
		cancel()
		return nil, err
	}
}

// finish ends c with outcome and returns the call's error.
func (c *inflight) finish(outcome int) error {
	c.end <- outcome
	err := <-c.done
	c.cancel()
	return err
}

func newSide(t require.TestingT, name string, cfg func(*adaptivelimit.Config)) *side {
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	require.NoError(t, err)
	s := &side{name: name, clk: clk}
	if name == "pipeline" {
		p, err := pipeline.NewBuilder[string](reg, "search").AdaptiveLimit(cfg).Build()
		require.NoError(t, err)
		s.run = p.ExecuteContext
	} else {
		fp, err := r4cfailsafe.NewAdaptiveLimit[string](reg, "search", cfg)
		require.NoError(t, err)
		exec := failsafe.With[string](fp)
		s.run = func(ctx context.Context, fn func(context.Context) (string, error)) (string, error) {
			return exec.WithContext(ctx).GetWithExecution(func(e failsafe.Execution[string]) (string, error) {
				return fn(e.Context())
			})
		}
	}
	s.h, err = reg.AdaptiveLimit("search")
	require.NoError(t, err)
	return s
}

// errClass names what a call's error is, as both sides must agree on it.
func errClass(err error, failsafeSide bool) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, adaptivelimit.ErrLimitExceeded):
		if failsafeSide && !errors.Is(err, adaptivelimiter.ErrExceeded) {
			return "rejected without failsafe-go's sentinel"
		}
		if !errors.Is(err, policy.ErrRejected) {
			return "rejected without policy.ErrRejected"
		}
		return "rejected"
	case errors.Is(err, policy.ErrCallTimeout), errors.Is(err, fstimeout.ErrExceeded):
		return "timeout"
	case errors.Is(err, errNotFound):
		return "error"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return err.Error()
}

// The same scenario through an r4c pipeline and through a failsafe-go
// executor with the same limit, step by step: every call is admitted or
// rejected alike, ends alike, and the two handles' snapshots are equal
// after every step (so the limit moves through the same sequence).
func TestFailsafeExecutorRejectsExactlyWhenThePipelineWould(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alg := rapid.SampledFrom([]adaptivelimit.Algorithm{adaptivelimit.Gradient2, adaptivelimit.AIMD, adaptivelimit.Vegas, adaptivelimit.Little}).Draw(t, "algorithm")
		initial := rapid.IntRange(1, 6).Draw(t, "initialLimit")
		samples := rapid.IntRange(1, 3).Draw(t, "minWindowSamples")
		cfg := func(c *adaptivelimit.Config) {
			c.Algorithm, c.InitialLimit, c.MinWindowSamples, c.MaxLimit = alg, initial, samples, 12
		}
		sides := [2]*side{newSide(t, "pipeline", cfg), newSide(t, "failsafe", cfg)}
		var held [][2]*inflight
		defer func() {
			for _, c := range held {
				_ = c[0].finish(endSuccess)
				_ = c[1].finish(endSuccess)
			}
		}()
		steps := rapid.IntRange(1, 60).Draw(t, "steps")
		for step := range steps {
			switch op := rapid.IntRange(0, 2).Draw(t, "op"); {
			case op == 0 || len(held) == 0: // start a call on both
				var pair [2]*inflight
				var classes [2]string
				for i, s := range sides {
					c, err := s.start()
					pair[i], classes[i] = c, errClass(err, i == 1)
					if c != nil {
						classes[i] = "admitted"
					}
				}
				if classes[0] != classes[1] {
					t.Fatalf("step %d: pipeline %s, failsafe %s", step, classes[0], classes[1])
				}
				if pair[0] != nil {
					held = append(held, pair)
				}
			case op == 1: // end a held call the same way on both
				i := rapid.IntRange(0, len(held)-1).Draw(t, "call")
				outcome := rapid.IntRange(0, endCount-1).Draw(t, "outcome")
				pipeOutcome := outcome
				if outcome == endFailsafeTimeout {
					pipeOutcome = endDrop // the pipeline's own timeout
				}
				e0, e1 := held[i][0].finish(pipeOutcome), held[i][1].finish(outcome)
				held = append(held[:i], held[i+1:]...)
				if c0, c1 := errClass(e0, false), errClass(e1, true); c0 != c1 {
					t.Fatalf("step %d, outcome %d: pipeline %s, failsafe %s", step, outcome, c0, c1)
				}
			default: // the clock moves on both
				d := time.Duration(rapid.IntRange(0, 800).Draw(t, "ms")) * time.Millisecond
				sides[0].clk.Advance(d)
				sides[1].clk.Advance(d)
			}
			s0, s1 := sides[0].h.Snapshot(), sides[1].h.Snapshot()
			if s0 != s1 {
				t.Fatalf("step %d: snapshots differ:\npipeline %+v\nfailsafe %+v", step, s0, s1)
			}
		}
	})
}
