package bulkhead_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

type queued struct {
	*actor
	deadline time.Time
}

// TestPropertyNoSlotLeaks drives a bulkhead through random sequences of
// calls, returns, panics, cancellations of waiters, clock moves and races
// between a cancellation and a release, checking after every step that the
// bulkhead's figures match a model (slots held, calls queued in order,
// rejections) and, at the end, that every slot came back.
func TestPropertyNoSlotLeaks(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		maxC := rapid.IntRange(1, 3).Draw(rt, "maxConcurrent")
		maxWait := rapid.SampledFrom([]time.Duration{0, time.Second}).Draw(rt, "maxWait")
		clk := clocktest.NewManualClock()
		b, err := bulkhead.New(bulkhead.Config{MaxConcurrent: maxC, MaxWait: maxWait}, policy.Env{Clock: clk})
		require.NoError(rt, err)
		st := bulkhead.Stage[string](b)
		h := bulkhead.NewHandle(b)

		var held []*actor
		var queue []queued
		var rejections int64
		ids := 0

		blockUntil := func(n int) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(rt, clk.BlockUntil(ctx, n))
		}
		// grantFront: a slot went to the front waiter.
		grantFront := func() {
			w := queue[0]
			queue = queue[1:]
			recv(rt, w.entered)
			held = append(held, w.actor)
		}
		check := func() {
			s := h.Snapshot()
			require.Equal(rt, len(held), s.InFlight, "in flight")
			require.LessOrEqual(rt, s.InFlight, maxC)
			require.Equal(rt, len(queue), s.Waiting, "waiting")
			require.Equal(rt, rejections, s.Rejections, "rejections")
			require.Equal(rt, len(queue), clk.Pending(), "one timer per waiter")
		}

		rt.Repeat(map[string]func(*rapid.T){
			"call": func(rt *rapid.T) {
				a := launch(st, ids)
				ids++
				switch {
				case len(held) < maxC && len(queue) == 0:
					recv(rt, a.entered)
					held = append(held, a)
				case maxWait == 0:
					o := recv(rt, a.result)
					require.ErrorIs(rt, o.err, bulkhead.ErrFull)
					rejections++
				default:
					blockUntil(len(queue) + 1)
					queue = append(queue, queued{a, clk.Now().Add(maxWait)})
				}
				check()
			},
			"finish": func(rt *rapid.T) {
				if len(held) == 0 {
					rt.Skip("nothing held")
				}
				i := rapid.IntRange(0, len(held)-1).Draw(rt, "held")
				panics := rapid.Bool().Draw(rt, "panics")
				o := held[i].finish(rt, panics)
				require.Equal(rt, outcome{panicked: panics}, o)
				held = slices.Delete(held, i, i+1)
				if len(queue) > 0 {
					grantFront()
				}
				check()
			},
			"cancelWaiter": func(rt *rapid.T) {
				if len(queue) == 0 {
					rt.Skip("nobody waits")
				}
				i := rapid.IntRange(0, len(queue)-1).Draw(rt, "waiter")
				queue[i].cancel()
				o := recv(rt, queue[i].result)
				require.ErrorIs(rt, o.err, context.Canceled)
				require.NotErrorIs(rt, o.err, bulkhead.ErrFull)
				queue = slices.Delete(queue, i, i+1)
				check()
			},
			"advance": func(rt *rapid.T) {
				d := rapid.SampledFrom([]time.Duration{0, 500 * time.Millisecond, time.Second, 2 * time.Second}).Draw(rt, "advance")
				clk.Advance(d)
				now := clk.Now()
				kept := queue[:0:0]
				for _, w := range queue {
					if w.deadline.After(now) {
						kept = append(kept, w)
						continue
					}
					o := recv(rt, w.result)
					require.ErrorIs(rt, o.err, bulkhead.ErrFull)
					rejections++
				}
				queue = kept
				check()
			},
			"cancelRacesRelease": func(rt *rapid.T) {
				if len(queue) == 0 || len(held) == 0 {
					rt.Skip("needs a waiter and a holder")
				}
				w := queue[0]
				i := rapid.IntRange(0, len(held)-1).Draw(rt, "held")
				hd := held[i]
				go w.cancel()
				hd.finish(rt, false)
				held = slices.Delete(held, i, i+1)
				select {
				case <-w.entered: // the slot reached it before it saw its ctx
					queue = queue[1:]
					held = append(held, w.actor)
				case o := <-w.result:
					require.ErrorIs(rt, o.err, context.Canceled)
					queue = queue[1:]
					if len(queue) > 0 {
						grantFront() // the slot went on to the next waiter
					}
				case <-time.After(10 * time.Second):
					rt.Fatal("the waiter neither ran nor returned")
				}
				check()
			},
		})

		// Wind down: every waiter gives up, every holder returns.
		for _, w := range queue {
			w.cancel()
			require.ErrorIs(rt, recv(rt, w.result).err, context.Canceled)
		}
		queue = nil
		for _, a := range held {
			a.finish(rt, false)
		}
		held = nil
		check()
		require.Zero(rt, b.InFlight())
		require.True(rt, b.TryAcquire(), "every slot came back")
		b.Release()
	})
}

// TestPropertyConcurrent hammers one bulkhead from many goroutines that
// take slots, wait, give up and panic at random, with no model: at rest
// every slot is back and nobody waits. It guards the lock-free paths
// under the race detector.
func TestPropertyConcurrent(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		maxC := rapid.IntRange(1, 4).Draw(rt, "maxConcurrent")
		workers := rapid.IntRange(1, 8).Draw(rt, "workers")
		plans := make([][]int, workers)
		for i := range plans {
			plans[i] = rapid.SliceOfN(rapid.IntRange(0, 3), 1, 20).Draw(rt, "plan")
		}
		b, err := bulkhead.New(bulkhead.Config{MaxConcurrent: maxC, MaxWait: time.Hour}, policy.Env{Clock: clocktest.NewManualClock()})
		require.NoError(rt, err)
		st := bulkhead.Stage[string](b)
		var over atomic.Bool
		done := make(chan struct{}, workers)
		for _, plan := range plans {
			go func() {
				defer func() { done <- struct{}{} }()
				for _, step := range plan {
					func() {
						ctx, cancel := context.WithCancel(context.Background())
						defer cancel()
						defer func() { _ = recover() }()
						if step == 2 {
							cancel() // gives up at once if it has to wait
						}
						_, _, _ = policy.NewNext([]policy.Link[string]{st}, func(context.Context) (string, error) {
							if b.InFlight() > maxC {
								over.Store(true)
							}
							if step == 3 {
								panic("kaboom")
							}
							return "", nil
						}, nil).Run(ctx)
					}()
				}
			}()
		}
		for range workers {
			recv(rt, done)
		}
		require.False(rt, over.Load(), "more calls in flight than slots")
		require.Zero(rt, b.InFlight())
		require.Zero(rt, b.Waiting())
	})
}

// TestPropertyAsyncPanickingCallbacks starts asynchronous calls through the
// stage and completes them in any order (success, failure, cancellation of
// either future) while the user's OnComplete functions panic at random: on
// the work's future, registered before the stage's own, and on the stage's
// future. After every step the stage's future is complete once the work's
// is, the slots held are exactly the calls still pending, and the first
// panic came out of the completing call.
func TestPropertyAsyncPanickingCallbacks(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		maxC := rapid.IntRange(1, 3).Draw(rt, "maxConcurrent")
		b, err := bulkhead.New(bulkhead.Config{MaxConcurrent: maxC}, policy.Env{Clock: clocktest.NewManualClock()})
		require.NoError(rt, err)
		st := bulkhead.Stage[string](b)
		type call struct {
			work *future.Promise[string]
			out  *future.Future[string]
		}
		var pending []call
		var panicWork, panicOuter bool

		rt.Repeat(map[string]func(*rapid.T){
			"start": func(rt *rapid.T) {
				w := future.NewPromise[string]()
				out := st.RunAsync(context.Background(), policy.NewAsyncNext[string](nil, func(context.Context) *future.Future[string] {
					w.Future().OnComplete(func(string, error) {
						if panicWork {
							panic("work callback")
						}
					})
					return w.Future()
				}))
				if len(pending) == maxC {
					_, err := out.Get(context.Background())
					require.ErrorIs(rt, err, bulkhead.ErrFull)
					return
				}
				out.OnComplete(func(string, error) {
					if panicOuter {
						panic("outer callback")
					}
				})
				pending = append(pending, call{w, out})
			},
			"complete": func(rt *rapid.T) {
				if len(pending) == 0 {
					rt.Skip("nothing pending")
				}
				i := rapid.IntRange(0, len(pending)-1).Draw(rt, "call")
				c := pending[i]
				panicWork = rapid.Bool().Draw(rt, "panicWork")
				panicOuter = rapid.Bool().Draw(rt, "panicOuter")
				how := rapid.SampledFrom([]string{"complete", "fail", "cancel work", "cancel outer"}).Draw(rt, "how")
				p := func() (p any) {
					defer func() { p = recover() }()
					switch how {
					case "complete":
						c.work.Complete("v")
					case "fail":
						c.work.Fail(errors.New("failed"))
					case "cancel work":
						c.work.Future().Cancel()
					case "cancel outer":
						c.out.Cancel()
					}
					return nil
				}()
				switch { // the work's callbacks run first, even under Cancel (which cancels the work first)
				case panicWork:
					require.Equal(rt, "work callback", p, "the first panic goes on")
				case panicOuter:
					require.Equal(rt, "outer callback", p)
				default:
					require.Nil(rt, p)
				}
				panicWork, panicOuter = false, false
				select {
				case <-c.out.Done():
				default:
					rt.Fatal("the stage's future is not complete")
				}
				pending = slices.Delete(pending, i, i+1)
			},
			"": func(rt *rapid.T) {
				require.Equal(rt, len(pending), b.InFlight(), "slots held")
			},
		})
		for _, c := range pending {
			c.work.Complete("late")
		}
		require.Zero(rt, b.InFlight())
	})
}
