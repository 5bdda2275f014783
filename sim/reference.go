package sim

import (
	"math"
	"time"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// window is what a window of r4c's adaptive limit hands its algorithm when
// it ends.
type window struct {
	// RTT is the average latency of the window's samples, drops included.
	RTT time.Duration
	// MaxInFlight is the most calls in flight during the window, counting
	// those already in flight when it began.
	MaxInFlight int
	// Drops is the number of samples that were drops.
	Drops int
}

// refAlgorithm recomputes a limit at the end of each window. It is a state
// machine called under the limiter's lock, one window at a time, with the
// limiter's bounds.
type refAlgorithm interface {
	// Update returns the next limit from the window's figures and the
	// current limit (a float: callers see its integer part).
	Update(w window, limit float64, b bounds) float64
}

// bounds are a limiter's least and greatest limits.
type bounds struct{ Min, Max float64 }

// windowed is this package's model of r4c's adaptive limit: slots,
// immediate rejection, windows of at least window and MinWindowSamples
// (extended, keeping their samples, when short of samples), recompute on
// the completing call, the most calls in flight of a window counting those
// in flight when it began. It runs the reference arithmetic of Gradient2,
// AIMD and Vegas, to cross-check the library (TestLibraryMatchesReference).
type windowed struct {
	clk        policy.Clock
	alg        refAlgorithm
	bounds     bounds
	windowLen  int64
	minSamples int

	est      float64
	limit    int
	inflight int

	winEnd   int64
	sum      int64
	n, drops int
	maxIn    int
}

func newWindowed(e Env, alg refAlgorithm) *windowed {
	cfg := adaptivelimit.Config{
		InitialLimit:     e.Scenario.Limits.InitialLimit,
		MaxLimit:         e.Scenario.Limits.MaxLimit,
		MinWindowSamples: e.Scenario.Limits.MinWindowSamples,
		Window:           e.Scenario.Limits.Window,
	}.WithDefaults()
	now := e.Clock.Nanotime()
	w := &windowed{clk: e.Clock, alg: alg, bounds: bounds{float64(cfg.MinLimit), float64(cfg.MaxLimit)},
		windowLen: int64(cfg.Window), minSamples: cfg.MinWindowSamples,
		est: float64(cfg.InitialLimit), limit: cfg.InitialLimit}
	w.winEnd = now + w.windowLen
	return w
}

func (w *windowed) TryAcquire() (Token, bool) {
	if w.inflight >= w.limit {
		return Token{}, false
	}
	w.inflight++
	w.maxIn = max(w.maxIn, w.inflight)
	return Token{Value: w.clk.Nanotime()}, true
}

func (w *windowed) Limit() int { return w.limit }

func (w *windowed) Release(t Token, o Outcome) {
	now := w.clk.Nanotime()
	lat := now - t.Value.(int64)
	w.inflight--
	w.sum += lat
	w.n++
	if o == Dropped {
		w.drops++
	}
	if now-w.winEnd < 0 {
		return
	}
	if w.n < w.minSamples {
		w.winEnd += w.windowLen
		return
	}
	win := window{RTT: time.Duration(w.sum / int64(w.n)), MaxInFlight: w.maxIn, Drops: w.drops}
	w.est = w.alg.Update(win, w.est, w.bounds)
	w.limit = int(w.est)
	w.winEnd = now + w.windowLen
	w.sum, w.n, w.drops = 0, 0, 0
	w.maxIn = w.inflight
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

// ---- Gradient2, exactly as docs/netflix-algorithms.md gives it.

type gradient2 struct {
	smoothing, tolerance, queue float64
	longWindow                  int
	long                        float64
	count                       int
}

func newGradient2() *gradient2 {
	return &gradient2{smoothing: 0.2, tolerance: 1.5, queue: 4, longWindow: 600}
}

func (g *gradient2) addLong(rtt float64) float64 {
	if g.count < 10 {
		g.count++
		g.long += (rtt - g.long) / float64(g.count)
		return g.long
	}
	f := 2 / float64(g.longWindow+1)
	g.long = g.long*(1-f) + rtt*f
	return g.long
}

func (g *gradient2) Update(w window, est float64, b bounds) float64 {
	rtt := float64(w.RTT)
	long := g.addLong(rtt)
	if long/rtt > 2 {
		g.long *= 0.95
	}
	if float64(w.MaxInFlight) < est/2 {
		return est
	}
	gradient := math.Max(0.5, math.Min(1, g.tolerance*long/rtt))
	next := est*gradient + g.queue
	next = est*(1-g.smoothing) + next*g.smoothing
	return clamp(next, b.Min, b.Max)
}

// ---- AIMD, exactly as docs/netflix-algorithms.md gives it (integer limit).

type aimd struct{ backoff float64 }

func (a aimd) Update(w window, est float64, b bounds) float64 {
	limit := int(est)
	if w.Drops > 0 {
		limit = int(float64(limit) * a.backoff)
	} else if w.MaxInFlight*2 >= limit {
		limit++
	}
	return clamp(float64(limit), b.Min, b.Max)
}

// ---- Vegas, as docs/netflix-algorithms.md gives Netflix's VegasLimit.

// log10i is Netflix's integer log10, at least 1.
func log10i(x float64) float64 {
	if x < 10 {
		return 1
	}
	return math.Floor(math.Log10(x))
}

type vegas struct {
	smoothing  float64
	multiplier float64
	noLoad     float64
	probes     int
	jitter     float64
	next       func() float64 // jitter source in [0.5, 1)
}

func newVegas(jitter func() float64) *vegas {
	return &vegas{smoothing: 1, multiplier: 30, jitter: jitter(), next: jitter}
}

func (v *vegas) Update(w window, est float64, b bounds) float64 {
	rtt := float64(w.RTT)
	v.probes++
	if v.jitter*v.multiplier*est <= float64(v.probes) {
		v.jitter, v.probes = v.next(), 0
		v.noLoad = rtt
		return est
	}
	if v.noLoad == 0 || rtt < v.noLoad {
		v.noLoad = rtt
		return est
	}
	queue := math.Ceil(est * (1 - v.noLoad/rtt))
	var next float64
	switch {
	case w.Drops > 0:
		next = est - log10i(est)
	case float64(w.MaxInFlight)*2 < est:
		return est
	default:
		l := log10i(math.Floor(est))
		alpha, beta, threshold := 3*l, 6*l, l
		switch {
		case queue <= threshold:
			next = est + beta
		case queue < alpha:
			next = est + l
		case queue > beta:
			next = est - l
		default:
			return est
		}
	}
	next = clamp(next, b.Min, b.Max)
	return (1-v.smoothing)*est + v.smoothing*next
}

// reference returns r4c's windowing running alg (made fresh per run), with
// the scenario's limits. The name says which.
func reference(name, note string, alg func() refAlgorithm) Spec {
	return Spec{Name: name, Note: note, New: func(e Env) (Limiter, error) { return newWindowed(e, alg()), nil }}
}

// RefGradient2, RefAIMD and RefVegas are the reference arithmetic of
// docs/netflix-algorithms.md on this package's model of r4c's windowing.
func RefGradient2() Spec {
	return reference("ref-gradient2", "Gradient2 (reference arithmetic), r4c windowing",
		func() refAlgorithm { return newGradient2() })
}

// RefAIMD: see RefGradient2.
func RefAIMD() Spec {
	return reference("ref-aimd", "AIMD (reference arithmetic), r4c windowing",
		func() refAlgorithm { return aimd{backoff: 0.9} })
}

// RefVegas: see RefGradient2. Its probe jitter follows the library's fixed
// schedule, 0.5 + 0.5·frac((k+1)·0.618...), instead of Netflix's random draw.
func RefVegas() Spec {
	return reference("ref-vegas", "Vegas (reference arithmetic), r4c windowing",
		func() refAlgorithm {
			k := 0
			return newVegas(func() float64 {
				_, frac := math.Modf(float64(k+1) * 0.6180339887498949)
				k++
				return 0.5 + 0.5*frac
			})
		})
}
