package sim

import (
	"context"
	"fmt"
	"math"

	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/platinummonkey/go-concurrency-limits/core"
	gcllimit "github.com/platinummonkey/go-concurrency-limits/limit"
	gcllimiter "github.com/platinummonkey/go-concurrency-limits/limiter"
	"github.com/platinummonkey/go-concurrency-limits/strategy"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// Outcome is how an admitted call ended, as the limiter is told.
type Outcome uint8

const (
	// Success: the dependency answered in time; the latency is a sample.
	Success Outcome = iota
	// Dropped: the client timed out. An overload signal in Netflix's sense
	// (r4c: OutcomeDrop, as a timeout.ErrCallTimeout inside the limit is
	// classified; go-concurrency-limits: OnDropped; failsafe-go records it
	// like any completion, as its executor does for a timeout inside it).
	Dropped
)

// Token is an admitted call's hold on a limiter, handed back to Release.
// It is a value so that r4c's admissions allocate nothing in the
// simulator: Permit holds an r4c permit, Value any other limiter's.
type Token struct {
	Permit adaptivelimit.Permit
	Value  any
}

// Limiter is the interface every limiter under test is adapted to. The
// simulator calls it from one goroutine.
type Limiter interface {
	// TryAcquire admits a call or rejects it at once.
	TryAcquire() (Token, bool)
	// Release frees an admitted call's slot and reports its outcome.
	Release(Token, Outcome)
	// Limit is the current limit (the calls that may be in flight at once).
	Limit() int
}

// Env is what a Spec's New gets to build a limiter for one run.
type Env struct {
	// Clock is the run's virtual clock (r4c limiters read it; peers read
	// time.Now inside the run's synctest bubble instead).
	Clock policy.Clock
	// Scenario is the scenario being run.
	Scenario *Scenario
	// Capacity returns the dependency's true capacity now (for the oracle).
	Capacity func() int
}

// Spec names a limiter and makes a fresh one per run.
type Spec struct {
	// Name is a short key: "r4c-little", "bulkhead-C", ...
	Name string
	// Note is one line for the report.
	Note string
	// Peer marks a limiter that reads time.Now itself: its runs take place
	// inside a testing/synctest bubble, the DES advancing the bubble's
	// clock with time.Sleep between events.
	Peer bool
	// New makes the limiter, or returns why it cannot.
	New func(Env) (Limiter, error)
}

// ---- r4c

type r4c struct {
	l *adaptivelimit.Limiter
	h *adaptivelimit.Handle
}

func (r r4c) TryAcquire() (Token, bool) {
	p, ok := r.l.TryAcquire()
	return Token{Permit: p}, ok
}

func (r r4c) Release(t Token, o Outcome) {
	if o == Dropped {
		r.l.Release(t.Permit, adaptivelimit.OutcomeDrop)
		return
	}
	r.l.Release(t.Permit, adaptivelimit.OutcomeSuccess)
}

func (r r4c) Limit() int { return r.h.Limit() }

// R4C is the library's adaptive limit with cfg, on the run's virtual clock.
// The scenario's Limits override cfg's InitialLimit, MaxLimit,
// MinWindowSamples and Window where they are set; every other field of cfg
// (Algorithm, tuning) is kept, so a candidate algorithm or tuning runs as
// R4C("mine", adaptivelimit.Config{Algorithm: ..., ...}).
func R4C(name string, cfg adaptivelimit.Config) Spec {
	note := "r4c adaptivelimit, " + cfg.Algorithm.String()
	return Spec{Name: name, Note: note, New: func(e Env) (Limiter, error) {
		c := cfg
		lim := e.Scenario.Limits
		if lim.InitialLimit > 0 {
			c.InitialLimit = lim.InitialLimit
		}
		if lim.MaxLimit > 0 {
			c.MaxLimit = lim.MaxLimit
		}
		if lim.MinWindowSamples > 0 {
			c.MinWindowSamples = lim.MinWindowSamples
		}
		if lim.Window > 0 {
			c.Window = lim.Window
		}
		l, err := adaptivelimit.New(c, policy.Env{Clock: e.Clock})
		if err != nil {
			return nil, err
		}
		return r4c{l, l.Handle()}, nil
	}}
}

// Algorithm is R4C("r4c-"+alg.String(), adaptivelimit.Config{Algorithm:
// alg}): the library's algorithm at its defaults plus the scenario's
// limits.
func Algorithm(alg adaptivelimit.Algorithm) Spec {
	s := R4C("r4c-"+alg.String(), adaptivelimit.Config{Algorithm: alg})
	s.Note += ", defaults"
	return s
}

// ---- fixed bulkhead and oracle

type bulkhead struct {
	size     func() int
	inflight int
}

func (b *bulkhead) TryAcquire() (Token, bool) {
	if b.inflight >= b.size() {
		return Token{}, false
	}
	b.inflight++
	return Token{}, true
}

func (b *bulkhead) Release(Token, Outcome) { b.inflight-- }
func (b *bulkhead) Limit() int             { return b.size() }

// Bulkhead is a limit fixed at factor × the scenario's initial capacity
// (rounded, at least 1), named name.
func Bulkhead(name string, factor float64) Spec {
	return Spec{Name: name, Note: fmt.Sprintf("fixed limit at %g × C₀", factor), New: func(e Env) (Limiter, error) {
		n := max(1, int(math.Round(factor*float64(e.Scenario.C0()))))
		return &bulkhead{size: func() int { return n }}, nil
	}}
}

// Oracle is a bulkhead whose size follows the dependency's true capacity
// C(t) at every instant: what a limiter that knew C would do.
func Oracle() Spec {
	return Spec{Name: "oracle", Note: "fixed limit that follows the true C(t)", New: func(e Env) (Limiter, error) {
		return &bulkhead{size: e.Capacity}, nil
	}}
}

// ---- peers: their limits are the scenario's, else r4c's defaults, so that
// the comparison is about algorithms and not about bounds.

func peerLimits(sc *Scenario) (initial, maxLimit int) {
	initial, maxLimit = adaptivelimit.DefaultInitialLimit, adaptivelimit.DefaultMaxLimit
	if sc.Limits.InitialLimit > 0 {
		initial = sc.Limits.InitialLimit
	}
	if sc.Limits.MaxLimit > 0 {
		maxLimit = sc.Limits.MaxLimit
	}
	return initial, maxLimit
}

type failsafe struct {
	l adaptivelimiter.AdaptiveLimiter[any]
}

func (f failsafe) TryAcquire() (Token, bool) {
	p, ok := f.l.TryAcquirePermit()
	if !ok {
		return Token{}, false
	}
	return Token{Value: p}, true
}

func (f failsafe) Release(t Token, _ Outcome) { t.Value.(adaptivelimiter.Permit).Record() }
func (f failsafe) Limit() int                 { return f.l.Limit() }

// Failsafe is failsafe-go v0.9.8's adaptivelimiter at its defaults (max
// limit factor 5, p90 of a 1-30 s window of at least 50 samples), without
// queueing (TryAcquirePermit rejects at once), with limits 1 and the
// scenario's initial and maximum limits.
func Failsafe() Spec {
	return Spec{Name: "failsafe-go", Note: "failsafe-go v0.9.8 adaptivelimiter, defaults, no queueing", Peer: true,
		New: func(e Env) (Limiter, error) {
			initial, maxLimit := peerLimits(e.Scenario)
			return failsafe{adaptivelimiter.NewBuilder[any]().
				WithLimits(1, uint(maxLimit), uint(initial)).Build()}, nil
		}}
}

type gcl struct{ l *gcllimiter.DefaultLimiter }

func (g gcl) TryAcquire() (Token, bool) {
	l, ok := g.l.Acquire(context.Background())
	if !ok {
		return Token{}, false
	}
	return Token{Value: l}, true
}

func (g gcl) Release(t Token, o Outcome) {
	l := t.Value.(core.Listener)
	if o == Dropped {
		l.OnDropped()
		return
	}
	l.OnSuccess()
}

func (g gcl) Limit() int { return g.l.EstimatedLimit() }

func newGCL(lim core.Limit, initial int) (Limiter, error) {
	l, err := gcllimiter.NewDefaultLimiter(lim,
		1e9, 1e9, // window 1 s
		0,   // sample threshold: every call is a sample (default 100 µs)
		100, // samples per window (default)
		strategy.NewSimpleStrategy(initial),
		gcllimit.NoopLimitLogger{}, core.EmptyMetricRegistryInstance)
	if err != nil {
		return nil, err
	}
	return gcl{l}, nil
}

// GCLGradient2 is go-concurrency-limits v0.8.0's Gradient2 (queue 4,
// smoothing 0.2, long window 600) under its DefaultLimiter (window 1 s and
// 100 samples, every call a sample), with the scenario's limits.
func GCLGradient2() Spec {
	return Spec{Name: "gcl-gradient2", Note: "go-concurrency-limits v0.8.0 Gradient2 in DefaultLimiter", Peer: true,
		New: func(e Env) (Limiter, error) {
			initial, maxLimit := peerLimits(e.Scenario)
			g, err := gcllimit.NewGradient2Limit("sim", initial, maxLimit, 1,
				func(int) int { return 4 }, 0.2, 600, gcllimit.NoopLimitLogger{}, core.EmptyMetricRegistryInstance)
			if err != nil {
				return nil, err
			}
			return newGCL(g, initial)
		}}
}

// GCLAIMD is go-concurrency-limits v0.8.0's AIMD (backoff 0.9, +1) under
// its DefaultLimiter, starting at the scenario's initial limit (it has no
// upper bound).
func GCLAIMD() Spec {
	return Spec{Name: "gcl-aimd", Note: "go-concurrency-limits v0.8.0 AIMD in DefaultLimiter", Peer: true,
		New: func(e Env) (Limiter, error) {
			initial, _ := peerLimits(e.Scenario)
			return newGCL(gcllimit.NewAIMDLimit("sim", initial, 0.9, 1, core.EmptyMetricRegistryInstance), initial)
		}}
}

// Specs returns the limiters of the report, in the order of its tables:
// r4c's four algorithms at their defaults, the peers, fixed bulkheads at C₀
// and 4C₀, and the oracle.
func Specs() []Spec {
	return []Spec{
		Algorithm(adaptivelimit.Little),
		Algorithm(adaptivelimit.Gradient2),
		Algorithm(adaptivelimit.AIMD),
		Algorithm(adaptivelimit.Vegas),
		Failsafe(),
		GCLGradient2(),
		GCLAIMD(),
		Bulkhead("bulkhead-C", 1),
		Bulkhead("bulkhead-4C", 4),
		Oracle(),
	}
}
