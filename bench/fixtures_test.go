package bench_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	fsadaptive "github.com/failsafe-go/failsafe-go/adaptivelimiter"
	fsbulkhead "github.com/failsafe-go/failsafe-go/bulkhead"
	fsbreaker "github.com/failsafe-go/failsafe-go/circuitbreaker"
	fsrate "github.com/failsafe-go/failsafe-go/ratelimiter"
	fsretry "github.com/failsafe-go/failsafe-go/retrypolicy"
	fstimeout "github.com/failsafe-go/failsafe-go/timeout"
	gclcore "github.com/platinummonkey/go-concurrency-limits/core"
	gcllimit "github.com/platinummonkey/go-concurrency-limits/limit"
	gcllimiter "github.com/platinummonkey/go-concurrency-limits/limiter"
	gclstrategy "github.com/platinummonkey/go-concurrency-limits/strategy"
	"github.com/sony/gobreaker/v2"
	"golang.org/x/time/rate"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// The work every benchmark protects: capture-free, returns at once, so that
// what is measured is the library around it. Calls go through these
// variables so that the compiler cannot inline the work away.
var (
	work    = func() (int, error) { return 1, nil }
	workCtx = func(context.Context) (int, error) { return 1, nil }
	workErr = func(context.Context) error { return nil }
)

// sink keeps results alive.
var sink atomic.Int64

// Shared settings, the same for r4c and the peers.
const (
	// minLimit keeps the adaptive limits (ours and the peers') from falling
	// below what two parallel goroutines need, so that an admitted
	// benchmark never sees a rejection.
	minLimit     = 4
	initialLimit = 20
	maxLimit     = 200
	bulkheadMax  = 100
	// A rate far above what a benchmark can reach: every call is allowed.
	hugeRate = 1_000_000_000
)

// --- r4c ---------------------------------------------------------------

func r4cRegistry(tb testing.TB) *r4c.Registry {
	tb.Helper()
	reg, err := r4c.NewRegistry()
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

func r4cBuild(tb testing.TB, b *pipeline.Builder[int]) *pipeline.Pipeline[int] {
	tb.Helper()
	p, err := b.Build()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func adaptiveAdmitted(c *adaptivelimit.Config) {
	c.MinLimit, c.InitialLimit, c.MaxLimit = minLimit, initialLimit, maxLimit
}

func adaptiveOne(c *adaptivelimit.Config) { c.MinLimit, c.InitialLimit, c.MaxLimit = 1, 1, 1 }

func bulkheadAdmitted(c *bulkhead.Config) { c.MaxConcurrent = bulkheadMax }
func bulkheadOne(c *bulkhead.Config)      { c.MaxConcurrent = 1 }

func rateAdmitted(c *ratelimit.Config) {
	c.Limit, c.Period, c.Burst = hugeRate, time.Second, hugeRate
}

func rateOne(c *ratelimit.Config) { c.Limit, c.Period, c.Burst = 1, time.Hour, 1 }

// breakerSlow tracks slow calls (SlowCallDuration 1 s at a 50 % threshold),
// so every call's latency is measured.
func breakerSlow(c *breaker.Config) {
	c.SlowCallDuration = time.Second
	c.SlowCallRateThreshold = 0.5
}

func retryDefault(c *retry.Config) { c.MaxAttempts = 3 }

func timeoutDefault(c *timeout.Config)     { c.Timeout = time.Second }
func timeoutCooperative(c *timeout.Config) { c.Timeout = time.Second; c.Cooperative = true }

func r4cLimiter(tb testing.TB, configure func(*adaptivelimit.Config)) *adaptivelimit.Limiter {
	tb.Helper()
	var cfg adaptivelimit.Config
	configure(&cfg)
	l, err := adaptivelimit.New(cfg, policy.Env{})
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

func r4cBulkhead(tb testing.TB, configure func(*bulkhead.Config)) *bulkhead.Bulkhead {
	tb.Helper()
	var cfg bulkhead.Config
	configure(&cfg)
	b, err := bulkhead.New(cfg, policy.Env{})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func r4cRate(tb testing.TB, configure func(*ratelimit.Config)) *ratelimit.Limiter {
	tb.Helper()
	var cfg ratelimit.Config
	configure(&cfg)
	l, err := ratelimit.New(cfg, policy.Env{})
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

func r4cBreaker(tb testing.TB) *breaker.Breaker {
	tb.Helper()
	var cfg breaker.Config
	breakerSlow(&cfg)
	b, err := breaker.New(cfg, policy.Env{})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func r4cRetry(tb testing.TB) *retry.Retry {
	tb.Helper()
	var cfg retry.Config
	retryDefault(&cfg)
	r, err := retry.New(cfg, policy.Env{})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func r4cTimeout(tb testing.TB, configure func(*timeout.Config)) *timeout.Timeout {
	tb.Helper()
	var cfg timeout.Config
	configure(&cfg)
	t, err := timeout.New(cfg, policy.Env{})
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// holdSlot makes p's stateful policies hold one slot or permit until the
// returned function is called: an ExecuteFuture whose future stays pending.
func holdSlot(tb testing.TB, p *pipeline.Pipeline[int]) (release func()) {
	tb.Helper()
	pr := future.NewPromise[int]()
	f := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] { return pr.Future() })
	select {
	case <-f.Done():
		_, err := f.Get(context.Background())
		tb.Fatalf("holding a slot: the call ended at once: %v", err)
	default:
	}
	return func() {
		pr.Complete(0)
		if _, err := f.Get(context.Background()); err != nil {
			tb.Fatal(err)
		}
	}
}

// r4cFull is the full synchronous pipeline: rate limiter, adaptive limit,
// bulkhead, breaker with slow-call tracking and retry (the builder puts them
// in the fixed order retry, breaker, rate limiter, adaptive limit,
// bulkhead), plus a timeout if configured.
func r4cFull(tb testing.TB, withTimeout func(*timeout.Config)) *pipeline.Pipeline[int] {
	b := pipeline.NewBuilder[int](r4cRegistry(tb), "full").
		RateLimit(rateAdmitted).
		AdaptiveLimit(adaptiveAdmitted).
		Bulkhead(bulkheadAdmitted).
		Breaker(breakerSlow).
		Retry(retryDefault)
	if withTimeout != nil {
		b = b.Timeout(withTimeout)
	}
	return r4cBuild(tb, b)
}

// --- failsafe-go ---------------------------------------------------------

func fsAdaptive(min, initial, max uint) fsadaptive.AdaptiveLimiter[int] {
	return fsadaptive.NewBuilder[int]().WithLimits(min, max, initial).Build()
}

func fsBreaker() fsbreaker.CircuitBreaker[int] { return fsbreaker.NewWithDefaults[int]() }

func fsRetry() fsretry.RetryPolicy[int] {
	return fsretry.NewBuilder[int]().WithMaxAttempts(3).Build()
}

func fsTimeout() fstimeout.Timeout[int] { return fstimeout.New[int](time.Second) }

func fsBulkhead(n uint) fsbulkhead.Bulkhead[int] { return fsbulkhead.New[int](n) }

// fsRateAdmitted never runs out within a benchmark. failsafe-go's bursty
// limiter is the closest to a token bucket with a burst.
func fsRateAdmitted() fsrate.RateLimiter[int] { return fsrate.NewBursty[int](hugeRate, time.Second) }

func fsRateOne() fsrate.RateLimiter[int] { return fsrate.NewBursty[int](1, time.Hour) }

// fsFull composes failsafe-go's executor in r4c's order (outermost first):
// retry, circuit breaker, rate limiter, adaptive limiter, [timeout,]
// bulkhead. failsafe-go's breaker has no slow-call tracking.
func fsFull(withTimeout bool) failsafe.Executor[int] {
	ps := []failsafe.Policy[int]{fsRetry(), fsBreaker(), fsRateAdmitted(), fsAdaptive(minLimit, initialLimit, maxLimit)}
	if withTimeout {
		ps = append(ps, fsTimeout())
	}
	ps = append(ps, fsBulkhead(bulkheadMax))
	return failsafe.With[int](ps...)
}

// --- go-concurrency-limits ---------------------------------------------

// gclLimiter is go-concurrency-limits' DefaultLimiter (which keeps its own
// window: 1 s and at least minWindowSamples samples, like r4c's) over the
// given limit, with its 100 µs sample threshold set to 0 so that every call
// is a sample, as in r4c.
func gclLimiter(tb testing.TB, lim gclcore.Limit, strategyLimit int) *gcllimiter.DefaultLimiter {
	tb.Helper()
	const window = int64(time.Second)
	const minWindowSamples = 10
	l, err := gcllimiter.NewDefaultLimiter(lim, window, window, 0, minWindowSamples,
		gclstrategy.NewSimpleStrategy(strategyLimit), gcllimit.NoopLimitLogger{}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// gclGradient2 is go-concurrency-limits' Gradient2 with the same bounds as
// the others.
func gclGradient2(tb testing.TB, min, initial, max int) *gcllimiter.DefaultLimiter {
	tb.Helper()
	g, err := gcllimit.NewGradient2Limit("bench", initial, max, min,
		func(int) int { return 4 }, 0.2, 600, gcllimit.NoopLimitLogger{}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return gclLimiter(tb, g, initial)
}

// gclAIMD is go-concurrency-limits' AIMD (backoff 0.9).
func gclAIMD(tb testing.TB, initial int) *gcllimiter.DefaultLimiter {
	tb.Helper()
	return gclLimiter(tb, gcllimit.NewAIMDLimit("bench", initial, 0.9, 1, nil), initial)
}

// --- gobreaker and x/time/rate ---------------------------------------------

func gobreakerDefault() *gobreaker.CircuitBreaker[int] {
	return gobreaker.NewCircuitBreaker[int](gobreaker.Settings{Name: "bench"})
}

func xrateAdmitted() *rate.Limiter { return rate.NewLimiter(rate.Limit(hugeRate), hugeRate) }
func xrateOne() *rate.Limiter      { return rate.NewLimiter(rate.Every(time.Hour), 1) }
