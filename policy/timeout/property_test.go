package timeout_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// after is a link that closes done once the stages inside it returned (or
// panicked): placed between the timeout and the bulkhead, it tells the test
// that the bulkhead has freed the slot.
type after struct{}

type doneKey struct{}

func (after) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	if done, ok := ctx.Value(doneKey{}).(chan struct{}); ok {
		defer close(done)
	}
	return next.Run(ctx)
}

func (after) RunAsync(ctx context.Context, next policy.AsyncNext[string]) *future.Future[string] {
	return next.Call(ctx)
}

// errListener stands for the panic of a Timeout listener, as a caller's
// goroutine in the property test reports it.
var errListener = errors.New("a Timeout listener panicked")

// pcall is a call in flight in the property test.
type pcall struct {
	honours  bool // the work returns when its ctx is done; else it waits for release
	ctx      context.Context
	cancel   context.CancelFunc
	deadline time.Time
	entered  chan struct{}
	release  chan struct{}
	workDone chan struct{} // closed once the bulkhead freed the slot
	res      chan result
	returned bool // the caller got its result
	workEnd  bool
}

// TestPropertyTimeoutAroundBulkhead runs random calls through a timeout
// (either mode) around a bulkhead on a ManualClock: works that return at
// once, panic, honour their ctx or ignore it until released; callers that
// cancel; clock moves. After every step the bulkhead holds exactly one slot
// per work still running (an abandoned work keeps its slot), each caller got
// what the model says (a timeout only when the timeout's own deadline fired
// first), and at the end every slot, timer and goroutine is gone.
func TestPropertyTimeoutAroundBulkhead(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		coop := rapid.Bool().Draw(rt, "cooperative")
		maxC := rapid.IntRange(1, 3).Draw(rt, "maxConcurrent")
		const d = time.Second
		clk := clocktest.NewManualClock()
		// A listener of the Timeout event panics in the steps that draw it:
		// the caller gets the panic (here turned into errListener by the
		// caller's goroutine) instead of the timeout error, and the rest
		// holds: the timeout is counted, the slot and the timer are freed.
		var panicListener atomic.Bool
		bus := &events.Bus{}
		defer bus.Subscribe(func(e events.Event) {
			if _, ok := e.(events.Timeout); ok && panicListener.Load() {
				panic("listener")
			}
		})()
		to, err := timeout.New(timeout.Config{Timeout: d, Cooperative: coop}, policy.Env{Clock: clk, Events: bus})
		require.NoError(rt, err)
		b, err := bulkhead.New(bulkhead.Config{MaxConcurrent: maxC}, policy.Env{Clock: clk})
		require.NoError(rt, err)
		links := []policy.Link[string]{timeout.Stage[string](to), after{}, bulkhead.Stage[string](b)}
		h := timeout.NewHandle(to)

		var calls []*pcall
		var timeouts int64
		running := func() int {
			n := 0
			for _, c := range calls {
				if !c.workEnd {
					n++
				}
			}
			return n
		}
		check := func() {
			require.Equal(rt, running(), b.InFlight(), "one slot per running work")
			require.Equal(rt, timeouts, h.Timeouts())
		}
		// expectTimeout / expectValue / expectCanceled receive a caller's result.
		expectTimeout := func(c *pcall) {
			r := recv(rt, c.res)
			if panicListener.Load() {
				require.ErrorIs(rt, r.err, errListener)
			} else {
				require.ErrorIs(rt, r.err, timeout.ErrCallTimeout)
			}
			require.Empty(rt, r.v)
			c.returned = true
			timeouts++
		}
		expect := func(c *pcall, v string, target error) {
			r := recv(rt, c.res)
			var te *timeout.CallTimeoutError
			require.False(rt, errors.As(r.err, &te), "not a timeout: %v", r.err)
			if target == nil {
				require.NoError(rt, r.err)
				require.Equal(rt, v, r.v)
			} else {
				require.ErrorIs(rt, r.err, target) // the value beside an error is unspecified
			}
			c.returned = true
		}
		workEnded := func(c *pcall) {
			recv(rt, c.workDone)
			c.workEnd = true
		}
		sync := func(fn func(context.Context) (string, error)) (string, error) {
			v, _, err := policy.NewNext(links, fn, nil).Run(context.Background())
			return v, err
		}
		free := func() bool { return running() < maxC }

		rt.Repeat(map[string]func(*rapid.T){
			"fast": func(rt *rapid.T) {
				v, err := sync(func(context.Context) (string, error) { return "fast", nil })
				if free() {
					require.NoError(rt, err)
					require.Equal(rt, "fast", v)
				} else {
					require.ErrorIs(rt, err, bulkhead.ErrFull)
				}
				check()
			},
			"panic": func(rt *rapid.T) {
				if !free() {
					rt.Skip("no slot")
				}
				var p any
				func() {
					defer func() { p = recover() }()
					_, _ = sync(func(context.Context) (string, error) { panic("kaboom") })
				}()
				require.Equal(rt, "kaboom", p)
				check()
			},
			"start": func(rt *rapid.T) {
				if !free() {
					rt.Skip("no slot")
				}
				c := &pcall{
					honours:  rapid.Bool().Draw(rt, "honours"),
					deadline: clk.Now().Add(d),
					entered:  make(chan struct{}),
					release:  make(chan struct{}),
					workDone: make(chan struct{}),
					res:      make(chan result, 1),
				}
				c.ctx, c.cancel = context.WithCancel(context.WithValue(context.Background(), doneKey{}, c.workDone))
				fn := func(ctx context.Context) (string, error) {
					close(c.entered)
					if c.honours {
						<-ctx.Done()
						return "late", ctx.Err()
					}
					<-c.release
					return "late", nil
				}
				go func() {
					var r result
					defer func() {
						if p := recover(); p != nil {
							if p != "listener" {
								panic(p)
							}
							r = result{err: errListener}
						}
						c.res <- r
					}()
					r = run(c.ctx, policy.NewNext(links, fn, nil))
				}()
				recv(rt, c.entered)
				calls = append(calls, c)
				check()
			},
			"cancelCaller": func(rt *rapid.T) {
				var live []*pcall
				for _, c := range calls {
					if !c.returned && c.ctx.Err() == nil {
						live = append(live, c)
					}
				}
				if len(live) == 0 {
					rt.Skip("no caller waiting")
				}
				c := rapid.SampledFrom(live).Draw(rt, "call")
				c.cancel()
				switch {
				case c.honours:
					expect(c, "", context.Canceled)
					workEnded(c)
				case !coop:
					expect(c, "", context.Canceled) // at once; the work goes on
				}
				check()
			},
			"advance": func(rt *rapid.T) {
				panicListener.Store(rapid.Bool().Draw(rt, "panicListener"))
				defer panicListener.Store(false)
				clk.Advance(rapid.SampledFrom([]time.Duration{0, d / 2, d, 2 * d}).Draw(rt, "advance"))
				now := clk.Now()
				for _, c := range calls {
					if c.returned || c.ctx.Err() != nil || c.deadline.After(now) {
						continue
					}
					switch {
					case c.honours:
						expectTimeout(c)
						workEnded(c)
					case !coop:
						expectTimeout(c) // at the deadline; the work goes on
					}
				}
				check()
			},
			"release": func(rt *rapid.T) {
				var stuck []*pcall
				for _, c := range calls {
					if !c.honours && !c.workEnd {
						stuck = append(stuck, c)
					}
				}
				if len(stuck) == 0 {
					rt.Skip("no stuck work")
				}
				c := rapid.SampledFrom(stuck).Draw(rt, "call")
				panicListener.Store(rapid.Bool().Draw(rt, "panicListener"))
				defer panicListener.Store(false)
				close(c.release)
				if !c.returned {
					// The caller still waits (cooperative mode, or default
					// mode before the deadline and any cancellation).
					fired := !c.deadline.After(clk.Now())
					switch {
					case c.ctx.Err() != nil:
						expect(c, "late", nil) // the caller's own cancellation: what the work returned
					case fired:
						expectTimeout(c) // cooperative: a late outcome is a timeout
					default:
						expect(c, "late", nil)
					}
				}
				workEnded(c)
				check()
			},
		})

		// Wind down.
		for _, c := range calls {
			if !c.honours && !c.workEnd {
				close(c.release)
			}
			c.cancel()
			if !c.returned {
				recv(rt, c.res)
			}
			if !c.workEnd {
				workEnded(c)
			}
		}
		calls = slices.Delete(calls, 0, len(calls))
		require.Zero(rt, b.InFlight())
		require.Zero(rt, drained(clk), "no deadline timer left")
	})
}
