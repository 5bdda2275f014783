package sim

import (
	"context"
	"sync/atomic"

	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/platinummonkey/go-concurrency-limits/core"
	gcllimit "github.com/platinummonkey/go-concurrency-limits/limit"
	gcllimiter "github.com/platinummonkey/go-concurrency-limits/limiter"
	"github.com/platinummonkey/go-concurrency-limits/strategy"
)

// Outcome is how an admitted call ended, as the limiter is told.
type Outcome uint8

const (
	// Success: the dependency answered; the latency is a sample.
	Success Outcome = iota
	// Dropped: the client timed out; an overload signal in Netflix's
	// sense (r4c: a drop, go-concurrency-limits: OnDropped; failsafe-go
	// records it like any other completion, as its executor does for a
	// timeout inside the limiter).
	Dropped
)

// Permit is an admitted call's hold on a limiter.
type Permit interface {
	// Release frees the slot and reports the outcome.
	Release(Outcome)
}

// Limiter is the small interface every limiter under test is adapted to.
// The simulator calls it from one goroutine at a time per virtual instant,
// but implementations must be safe for concurrent use anyway.
type Limiter interface {
	// TryAcquire admits a call or rejects it at once.
	TryAcquire() (Permit, bool)
	// Limit is the current limit (the number of calls that may be in
	// flight at once).
	Limit() int
}

// Spec names a limiter and makes a fresh one; New is called inside the
// simulation's bubble so that the limiter's clock readings are virtual.
type Spec struct {
	Name string // short key: "r4c-gradient2", "bulkhead-40", ...
	Note string // one line for the report
	New  func() Limiter
}

// Limits shared by every adaptive limiter under test, so that the comparison
// is about algorithms and not about bounds: r4c's and failsafe-go's
// defaults, applied to go-concurrency-limits too.
const (
	InitialLimit = 20
	MinLimit     = 1
	MaxLimit     = 200
)

// ---- fixed bulkhead

type bulkhead struct {
	max      int64
	inflight atomic.Int64
}

type bulkheadPermit struct{ b *bulkhead }

func (p bulkheadPermit) Release(Outcome) { p.b.inflight.Add(-1) }

func (b *bulkhead) TryAcquire() (Permit, bool) {
	for {
		n := b.inflight.Load()
		if n >= b.max {
			return nil, false
		}
		if b.inflight.CompareAndSwap(n, n+1) {
			return bulkheadPermit{b}, true
		}
	}
}

func (b *bulkhead) Limit() int { return int(b.max) }

// Bulkhead is a fixed limit of n.
func Bulkhead(name string, n int) Spec {
	return Spec{Name: name, Note: "fixed limit", New: func() Limiter { return &bulkhead{max: int64(n)} }}
}

// ---- failsafe-go adaptivelimiter

type failsafe struct {
	l adaptivelimiter.AdaptiveLimiter[any]
}

type failsafePermit struct{ p adaptivelimiter.Permit }

func (p failsafePermit) Release(Outcome) { p.p.Record() }

func (f failsafe) TryAcquire() (Permit, bool) {
	p, ok := f.l.TryAcquirePermit()
	if !ok {
		return nil, false
	}
	return failsafePermit{p}, true
}

func (f failsafe) Limit() int { return f.l.Limit() }

// Failsafe is failsafe-go v0.9.8's adaptivelimiter at its defaults (limits
// 1/200/20, max limit factor 5, p90 of a 1-30 s window of at least 50
// samples), without queueing: TryAcquirePermit rejects at once.
func Failsafe() Spec {
	return Spec{Name: "failsafe-go", Note: "failsafe-go v0.9.8 adaptivelimiter, defaults, no queueing",
		New: func() Limiter {
			return failsafe{adaptivelimiter.NewBuilder[any]().
				WithLimits(MinLimit, MaxLimit, InitialLimit).Build()}
		}}
}

// ---- go-concurrency-limits

type gcl struct{ l *gcllimiter.DefaultLimiter }

type gclPermit struct{ l core.Listener }

func (p gclPermit) Release(o Outcome) {
	if o == Dropped {
		p.l.OnDropped()
		return
	}
	p.l.OnSuccess()
}

func (g gcl) TryAcquire() (Permit, bool) {
	l, ok := g.l.Acquire(context.Background())
	if !ok {
		return nil, false
	}
	return gclPermit{l}, true
}

func (g gcl) Limit() int { return g.l.EstimatedLimit() }

func newGCL(lim core.Limit) Limiter {
	l, err := gcllimiter.NewDefaultLimiter(lim,
		1e9, 1e9, // window 1 s
		0,   // sample threshold: every call is a sample (default 100 µs)
		100, // samples per window (default)
		strategy.NewSimpleStrategy(InitialLimit),
		gcllimit.NoopLimitLogger{}, core.EmptyMetricRegistryInstance)
	if err != nil {
		panic(err)
	}
	return gcl{l}
}

// GCLGradient2 is go-concurrency-limits v0.8.0's Gradient2 (queue 4,
// smoothing 0.2, long window 600) under its DefaultLimiter, with bounds
// 1/200/20.
func GCLGradient2() Spec {
	return Spec{Name: "gcl-gradient2", Note: "go-concurrency-limits v0.8.0 Gradient2 in DefaultLimiter",
		New: func() Limiter {
			g, err := gcllimit.NewGradient2Limit("sim", InitialLimit, MaxLimit, MinLimit,
				func(int) int { return 4 }, 0.2, 600, gcllimit.NoopLimitLogger{}, core.EmptyMetricRegistryInstance)
			if err != nil {
				panic(err)
			}
			return newGCL(g)
		}}
}

// GCLAIMD is go-concurrency-limits v0.8.0's AIMD (backoff 0.9, +1) under
// its DefaultLimiter, starting at 20 (it has no upper bound).
func GCLAIMD() Spec {
	return Spec{Name: "gcl-aimd", Note: "go-concurrency-limits v0.8.0 AIMD in DefaultLimiter",
		New: func() Limiter {
			return newGCL(gcllimit.NewAIMDLimit("sim", InitialLimit, 0.9, 1, core.EmptyMetricRegistryInstance))
		}}
}
