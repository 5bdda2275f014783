package pipeline_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// observed records what a pipeline reports to its observers.
type observed struct {
	mu   sync.Mutex
	got  []events.Call
	ctxs []any
}

func (c *observed) ObserveCall(ctx context.Context, call events.Call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, call)
	c.ctxs = append(c.ctxs, ctx.Value(traceKey{}))
}

func (c *observed) all() []events.Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]events.Call(nil), c.got...)
}

type traceKey struct{}

// sleepOn returns a function that takes d on clk, then returns err.
func sleepOn(clk *clocktest.ManualClock, d time.Duration, err error) func(context.Context) (int, error) {
	return func(context.Context) (int, error) { clk.Advance(d); return 1, err }
}

func TestObserverSeesEveryOutcomeWithExactLatency(t *testing.T) {
	clk, reg := manual(t)
	var obs observed
	stop := reg.Events().ObserveCalls(&obs)
	defer stop()
	assert.False(t, reg.Events().Active(), "an observer is no event listener")

	p, err := pipeline.NewBuilder[int](reg, "orders").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1; c.MinLimit = 1; c.MaxLimit = 1 }).
		Timeout(func(c *timeout.Config) { c.Timeout = 100 * time.Millisecond; c.Cooperative = true }).
		Build()
	require.NoError(t, err)
	ctx := context.WithValue(context.Background(), traceKey{}, "t1")

	_, err = p.ExecuteContext(ctx, sleepOn(clk, 30*time.Millisecond, nil))
	require.NoError(t, err)
	boom := errors.New("boom")
	_, err = p.ExecuteContext(ctx, sleepOn(clk, 10*time.Millisecond, boom))
	require.ErrorIs(t, err, boom)

	out := make(chan error, 1)
	go func() {
		_, err := p.ExecuteContext(ctx, func(ctx context.Context) (int, error) { <-ctx.Done(); return 0, ctx.Err() })
		out <- err
	}()
	waitTimers(t, clk, 1)
	clk.Advance(100 * time.Millisecond)
	require.ErrorIs(t, <-out, timeout.ErrCallTimeout)

	release, done := hold(t, p)
	_, err = p.ExecuteContext(ctx, sleepOn(clk, 0, nil))
	require.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
	release()
	<-done

	cctx, cancel := context.WithCancel(ctx)
	_, err = p.ExecuteContext(cctx, func(ctx context.Context) (int, error) { cancel(); return 0, ctx.Err() })
	require.ErrorIs(t, err, context.Canceled)

	got := obs.all()
	require.Len(t, got, 6)
	want := []events.Call{
		{Pipeline: "orders", Outcome: events.OutcomeSuccess, Latency: 30 * time.Millisecond},
		{Pipeline: "orders", Outcome: events.OutcomeFailure, Latency: 10 * time.Millisecond},
		{Pipeline: "orders", Outcome: events.OutcomeTimeout, Latency: 100 * time.Millisecond},
		{Pipeline: "orders", Outcome: events.OutcomeRejected, RejectedBy: "adaptivelimit"},
		{Pipeline: "orders", Outcome: events.OutcomeSuccess}, // the held call
		{Pipeline: "orders", Outcome: events.OutcomeCancelled},
	}
	assert.Equal(t, want, got)
	assert.Equal(t, []any{"t1", "t1", "t1", "t1", nil, "t1"}, obs.ctxs, "the observer gets the caller's ctx")

	stop()
	_, err = p.Execute(func() (int, error) { return 1, nil })
	require.NoError(t, err)
	assert.Len(t, obs.all(), 6, "a removed observer hears nothing more")
}

func TestObserverNamesTheRejectingKind(t *testing.T) {
	clk, reg := manual(t)
	var obs observed
	defer reg.Events().ObserveCalls(&obs)()

	bh, err := pipeline.NewBuilder[int](reg, "bh").Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = 1 }).Build()
	require.NoError(t, err)
	release, done := hold(t, bh)
	_, err = bh.Execute(ok)
	require.ErrorIs(t, err, bulkhead.ErrFull)
	release()
	<-done

	rl, err := pipeline.NewBuilder[int](reg, "rl").RateLimit(func(c *ratelimit.Config) { c.Limit = 1; c.Period = time.Second; c.Burst = 1 }).Build()
	require.NoError(t, err)
	_, err = rl.Execute(ok)
	require.NoError(t, err)
	_, err = rl.Execute(ok)
	require.ErrorIs(t, err, ratelimit.ErrRateLimited)

	br, err := pipeline.NewBuilder[int](reg, "br").Breaker(nil).Build()
	require.NoError(t, err)
	h, err := reg.Breaker("br")
	require.NoError(t, err)
	h.TransitionToOpen()
	_, err = br.Execute(ok)
	require.ErrorIs(t, err, breaker.ErrOpen)

	custom, err := pipeline.NewBuilder[int](reg, "custom").Use(policy.Func[int](func(context.Context, policy.Next[int]) (int, error) {
		return 0, &policy.RejectedError{Kind: "quota", Instance: "custom"}
	})).Build()
	require.NoError(t, err)
	_, err = custom.Execute(ok)
	require.ErrorIs(t, err, policy.ErrRejected)

	var by []string
	for _, c := range obs.all() {
		if c.Outcome == events.OutcomeRejected {
			by = append(by, c.Pipeline+":"+c.RejectedBy)
			assert.Zero(t, c.Latency, "nothing ran and the clock did not move")
		}
	}
	assert.Equal(t, []string{"bh:bulkhead", "rl:ratelimit", "br:breaker", "custom:quota"}, by)
	_ = clk
}

func TestObserverOfExecuteFutureAndExecuteAsync(t *testing.T) {
	clk, reg := manual(t)
	var obs observed
	defer reg.Events().ObserveCalls(&obs)()
	p, err := pipeline.NewBuilder[int](reg, "async").AdaptiveLimit(aimd(5)).Build()
	require.NoError(t, err)

	pr := future.NewPromise[int]()
	f := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] { return pr.Future() })
	clk.Advance(50 * time.Millisecond)
	pr.Complete(7)
	v, err := f.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 7, v)

	pr2 := future.NewPromise[int]()
	f2 := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] { return pr2.Future() })
	f2.Cancel()
	_, err = f2.Get(context.Background())
	require.Error(t, err)

	v, err = p.ExecuteAsync(context.Background(), sleepOn(clk, 20*time.Millisecond, nil)).Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, v)

	assert.Equal(t, []events.Call{
		{Pipeline: "async", Outcome: events.OutcomeSuccess, Latency: 50 * time.Millisecond},
		{Pipeline: "async", Outcome: events.OutcomeCancelled},
		{Pipeline: "async", Outcome: events.OutcomeSuccess, Latency: 20 * time.Millisecond},
	}, obs.all())
}

// ctxEvents records the kind of each event with the value of traceKey in
// the ctx it came with.
type ctxEvents struct {
	mu  sync.Mutex
	got []string
}

func (c *ctxEvents) listen(ctx context.Context, e events.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, _ := ctx.Value(traceKey{}).(string)
	c.got = append(c.got, e.Kind().String()+"@"+v)
}

func (c *ctxEvents) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}

func TestEventsComeWithTheCallersCtx(t *testing.T) {
	clk, reg := manual(t)
	var rec ctxEvents
	defer reg.Events().SubscribeContext(rec.listen)()
	ctx := context.WithValue(context.Background(), traceKey{}, "t9")

	// A timeout inside the limit: a drop that ends the window (limit
	// changed), retried once, then handled by the fallback.
	p, err := pipeline.NewBuilder[int](reg, "traced").
		Fallback(fallback.Return(-1)).
		Retry(func(c *retry.Config) { c.MaxAttempts = 2; c.Wait = 10 * time.Millisecond; c.Jitter = retry.JitterNone }).
		AdaptiveLimit(aimd(10)).
		Timeout(func(c *timeout.Config) { c.Timeout = 100 * time.Millisecond; c.Cooperative = true }).
		Build()
	require.NoError(t, err)
	clk.Advance(time.Second)
	out := make(chan int, 1)
	go func() {
		v, _ := p.ExecuteContext(ctx, func(ctx context.Context) (int, error) { <-ctx.Done(); return 0, ctx.Err() })
		out <- v
	}()
	waitTimers(t, clk, 1)
	clk.Advance(100 * time.Millisecond) // first attempt times out
	waitTimers(t, clk, 1)
	clk.Advance(10 * time.Millisecond) // the retry's wait
	waitTimers(t, clk, 1)
	clk.Advance(100 * time.Millisecond) // second attempt times out
	assert.Equal(t, -1, <-out)

	// A rejection and a hedge.
	hp, err := pipeline.NewBuilder[int](reg, "hedged").
		Hedge(func(c *hedge.Config) { c.Delay = 10 * time.Millisecond; c.MaxHedged = 1 }).
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1; c.MinLimit = 1; c.MaxLimit = 1 }).
		Build()
	require.NoError(t, err)
	rejected := make(chan struct{})
	stopRej := reg.Events().Subscribe(func(e events.Event) {
		if e.Kind() == events.KindCallRejected {
			close(rejected)
		}
	})
	defer stopRej()
	hout := make(chan error, 1)
	rel := make(chan struct{})
	running := make(chan struct{}, 1)
	go func() {
		_, err := hp.ExecuteContext(ctx, func(context.Context) (int, error) { running <- struct{}{}; <-rel; return 1, nil })
		hout <- err
	}()
	<-running // the first attempt holds the only slot
	waitTimers(t, clk, 1)
	clk.Advance(10 * time.Millisecond) // the hedge starts and is rejected by the full limit
	<-rejected
	close(rel)
	require.NoError(t, <-hout)

	assert.Equal(t, []string{
		"timeout@t9", "limit changed@t9", "retry attempt@t9",
		"timeout@t9", "fallback used@t9",
		"hedge started@t9", "call rejected@t9",
	}, rec.all())
}

func okCtx(context.Context) (int, error) { return 42, nil }

// nop is an observer that does nothing: the benchmarks below measure what
// observing costs the pipeline itself (the check, the clock reading on
// entry, the classification and the interface call).
type nop struct{}

func (nop) ObserveCall(context.Context, events.Call) {}

// BenchmarkObserved compares an admitted call without and with a call
// observer, through the one-stage adaptive limit and the full pipeline.
func BenchmarkObserved(b *testing.B) {
	for _, shape := range []string{"adaptive", "full"} {
		for _, observed := range []bool{false, true} {
			name := shape + "/unobserved"
			if observed {
				name = shape + "/observed"
			}
			b.Run(name, func(b *testing.B) {
				reg := newReg(b)
				if observed {
					defer reg.Events().ObserveCalls(nop{})()
				}
				p := adaptiveOnly(b, reg, 20)
				if shape == "full" {
					p = fullPipeline(b, reg)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.Execute(ok); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// The per-instance counters the metrics modules export as outcomes:
// calls the adaptive limit let go without a sample, and the breaker's
// failures and ignored calls.
func TestSnapshotsCountIgnoredAndFailedCalls(t *testing.T) {
	_, reg := manual(t)
	skip := errors.New("not the dependency's fault")
	p, err := pipeline.NewBuilder[int](reg, "counted").
		Breaker(func(c *breaker.Config) { c.IgnoreOn = []error{skip} }).
		AdaptiveLimit(aimd(5)).
		Build()
	require.NoError(t, err)
	boom := errors.New("boom")
	for _, e := range []error{nil, boom, boom, skip} {
		_, _ = p.Execute(func() (int, error) { return 0, e })
	}
	al, err := reg.AdaptiveLimit("counted")
	require.NoError(t, err)
	assert.EqualValues(t, 3, al.Snapshot().Ignored, "two failures and one ignored error: no samples")
	br, err := reg.Breaker("counted")
	require.NoError(t, err)
	s := br.Snapshot()
	assert.EqualValues(t, 2, s.FailedCalls)
	assert.EqualValues(t, 1, s.IgnoredCalls)
	assert.EqualValues(t, 3, s.Calls)
	br.Reset()
	assert.EqualValues(t, 2, br.Snapshot().FailedCalls, "Reset keeps the cumulative counts")
}
