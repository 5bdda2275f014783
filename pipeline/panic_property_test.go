package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// The points where user code runs while a call goes through a pipeline of
// every policy. A fault set says which of them panic during one call.
const (
	ptDropIf        = iota // adaptive limit
	ptRecordIf             // breaker
	ptIgnoreIf             // breaker
	ptRetryIf              // retry
	ptAbortIf              // retry
	ptRetryResult          // retry RetryIfResult
	ptHandleIf             // fallback
	ptFallbackFunc         // fallback Func
	ptListener             // any event listener
	ptWorkCallback         // the user's OnComplete on the work's future (async)
	ptOuterCallback        // the user's OnComplete on the pipeline's future (async)
	numPoints
)

var pointNames = [numPoints]string{"DropIf", "RecordIf", "IgnoreIf", "RetryIf", "AbortIf", "RetryIfResult",
	"HandleIf", "fallback Func", "listener", "work OnComplete", "outer OnComplete"}

type faults struct{ on [numPoints]atomic.Bool }

func (f *faults) set(points []int) {
	for i := range f.on {
		f.on[i].Store(false)
	}
	for _, p := range points {
		f.on[p].Store(true)
	}
}

func (f *faults) hit(p int) {
	if f.on[p].Load() {
		panic(fmt.Sprintf("user code: %s", pointNames[p]))
	}
}

var errWork = errors.New("work failed")

// TestPropertyPanickingUserCodeLeaksNothing runs random sequences of
// synchronous and asynchronous calls through a pipeline of every policy,
// with the user's code panicking at random points: predicates (DropIf,
// RecordIf, IgnoreIf, RetryIf, AbortIf, RetryIfResult, HandleIf), the
// fallback's Func, event listeners, and completion callbacks on the work's
// and on the pipeline's futures. After every call: the pipeline's future is
// complete, no slot or permit is held, no timer is pending. At the end the
// breaker still admits a trial and the pipeline still serves a clean call.
func TestPropertyPanickingUserCodeLeaksNothing(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		clk := clocktest.NewManualClock()
		var fs faults
		reg, err := r4c.NewRegistry(r4c.WithClock(clk))
		require.NoError(rt, err)
		stop := reg.Events().Subscribe(func(events.Event) { fs.hit(ptListener) })
		defer stop()
		cooperative := rapid.Bool().Draw(rt, "cooperative")
		// build makes the pipeline named name; async pipelines leave out
		// the retry and the hedge, which complete the call's future on
		// goroutines of their own, where a panic of the user's code ends
		// the program (as any panic on a goroutine does).
		build := func(name string, all bool) *pipeline.Pipeline[int] {
			b := pipeline.NewBuilder[int](reg, name).
				Fallback(func(c *fallback.Config) {
					c.HandleIf = func(error) bool { fs.hit(ptHandleIf); return true }
					c.Func = func(context.Context, error) (any, error) { fs.hit(ptFallbackFunc); return -1, nil }
				}).
				Breaker(func(c *breaker.Config) {
					c.MinimumCalls = 2
					c.OpenFor = time.Second
					c.HalfOpenCalls = 1
					c.RecordIf = func(error) bool { fs.hit(ptRecordIf); return true }
					c.IgnoreIf = func(error) bool { fs.hit(ptIgnoreIf); return false }
				}).
				RateLimit(func(c *ratelimit.Config) { c.Limit = 1 << 20; c.Period = time.Second }).
				AdaptiveLimit(func(c *adaptivelimit.Config) {
					c.Algorithm = adaptivelimit.AIMD
					c.InitialLimit, c.MinLimit, c.MaxLimit = 4, 1, 8
					c.MinWindowSamples = 1
					c.Window = time.Second
					c.DropIf = func(error) bool { fs.hit(ptDropIf); return true }
				}).
				Timeout(func(c *timeout.Config) { c.Timeout = time.Hour; c.Cooperative = cooperative }).
				Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = 4 })
			if all {
				b = b.Retry(func(c *retry.Config) {
					c.MaxAttempts = 2
					c.SetZero("wait")
					c.RetryIf = func(error) bool { fs.hit(ptRetryIf); return true }
					c.AbortIf = func(error) bool { fs.hit(ptAbortIf); return false }
					c.RetryIfResult = func(any) bool { fs.hit(ptRetryResult); return false }
				}).Hedge(func(c *hedge.Config) { c.Delay = time.Hour })
			}
			p, err := b.Build()
			require.NoError(rt, err)
			return p
		}
		p, pa := build("pp", true), build("pa", false)
		type handles struct {
			al *adaptivelimit.Handle
			bh *bulkhead.Handle
			br *breaker.Handle
		}
		hs := map[string]handles{}
		for _, id := range []string{"pp", "pa"} {
			al, err := reg.AdaptiveLimit(id)
			require.NoError(rt, err)
			bh, err := reg.Bulkhead(id)
			require.NoError(rt, err)
			br, err := reg.Breaker(id)
			require.NoError(rt, err)
			hs[id] = handles{al, bh, br}
		}
		held := func() int {
			n := clk.Pending()
			for _, h := range hs {
				n += h.al.InFlight() + h.bh.InFlight() + h.bh.Waiting()
			}
			return n
		}
		atRest := func(what string) {
			// A detached timeout's goroutine may still be on its way out
			// when the caller returns: give it a bounded while.
			for i := 0; i < 10000 && held() > 0; i++ {
				time.Sleep(time.Millisecond)
			}
			for id, h := range hs {
				require.Zero(rt, h.al.InFlight(), "%s %s: adaptive-limit slots held", id, what)
				require.Zero(rt, h.bh.InFlight(), "%s %s: bulkhead slots held", id, what)
				require.Zero(rt, h.bh.Waiting(), "%s %s", id, what)
			}
			require.Zero(rt, clk.Pending(), "%s: timers pending", what)
		}
		drawFaults := func(rt *rapid.T, async bool) {
			n := numPoints
			if !async {
				n = ptWorkCallback // the callbacks are async only
			}
			fs.set(rapid.SliceOfNDistinct(rapid.IntRange(0, n-1), 0, 3, rapid.ID[int]).Draw(rt, "panics"))
		}

		rt.Repeat(map[string]func(*rapid.T){
			"sync": func(rt *rapid.T) {
				how := rapid.SampledFrom([]string{"ok", "error", "panic"}).Draw(rt, "work")
				drawFaults(rt, false)
				_ = panicOf(func() {
					_, _ = p.ExecuteContext(context.Background(), func(context.Context) (int, error) {
						switch how {
						case "error":
							return 0, errWork
						case "panic":
							panic("the work")
						}
						return 1, nil
					})
				})
				fs.set(nil)
				atRest("sync " + how)
			},
			"async": func(rt *rapid.T) {
				how := rapid.SampledFrom([]string{"ok", "error", "cancel"}).Draw(rt, "work")
				drawFaults(rt, true)
				var works []*future.Promise[int]
				var f *future.Future[int]
				_ = panicOf(func() {
					f = pa.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] {
						w := future.NewPromise[int]()
						w.Future().OnComplete(func(int, error) { fs.hit(ptWorkCallback) })
						works = append(works, w)
						return w.Future()
					})
				})
				if f == nil {
					fs.set(nil)
					atRest("async: ExecuteFuture panicked")
					return
				}
				_ = panicOf(func() { f.OnComplete(func(int, error) { fs.hit(ptOuterCallback) }) })
				for _, w := range works {
					_ = panicOf(func() {
						switch how {
						case "ok":
							w.Complete(1)
						case "error":
							w.Fail(errWork)
						case "cancel":
							f.Cancel()
							w.Fail(context.Canceled)
						}
					})
				}
				select {
				case <-f.Done():
				case <-time.After(10 * time.Second):
					rt.Fatalf("the pipeline's future never completed (%s)", how)
				}
				fs.set(nil)
				atRest("async " + how)
			},
			"advance": func(rt *rapid.T) {
				clk.Advance(rapid.SampledFrom([]time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}).Draw(rt, "advance"))
			},
		})

		// The breakers are not stuck: after OpenFor they admit a trial, and a
		// clean call goes through every policy (a refusal would be answered
		// by the fallback's -1).
		fs.set(nil)
		clk.Advance(2 * time.Second)
		v, err := p.Execute(func() (int, error) { return 7, nil })
		require.NoError(rt, err)
		require.Equal(rt, 7, v, "breaker %v", hs["pp"].br.State())
		f := pa.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] { return future.Completed(8) })
		v, err = f.Get(context.Background())
		require.NoError(rt, err)
		require.Equal(rt, 8, v, "breaker %v", hs["pa"].br.State())
		atRest("end")
	})
}
