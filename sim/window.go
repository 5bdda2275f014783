package sim

import (
	"math"
	"sync"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// Window is what a window of r4c's adaptive limit hands its algorithm when
// it ends.
type Window struct {
	// RTT is the average latency of the window's samples, drops included.
	RTT time.Duration
	// MinRTT is the lowest latency of a sample of the window.
	MinRTT time.Duration
	// MaxInFlight is the most calls in flight during the window, counting
	// those already in flight when it began.
	MaxInFlight int
	// Samples is the number of samples (drops included).
	Samples int
	// Drops is the number of samples that were drops.
	Drops int
	// Duration is how long the window lasted.
	Duration time.Duration
}

// Algorithm recomputes a limit at the end of each window. It is a state
// machine called under the limiter's lock, one window at a time.
type Algorithm interface {
	// Update returns the next limit from the window's figures and the
	// current limit (a float: callers see its integer part).
	Update(w Window, limit float64) float64
}

// windowed is this package's model of r4c's adaptive limit: slots,
// immediate rejection, windows of at least windowLen and minSamples
// (extended, keeping their samples, when short of samples), recompute on
// the completing call. It runs the reference algorithms and the candidate
// before they exist in the library, and cross-checks the library after.
type windowed struct {
	mu         sync.Mutex
	clk        policy.Clock
	alg        Algorithm
	windowLen  int64
	minSamples int

	est      float64
	limit    int
	inflight int

	winStart, winEnd int64
	sum              int64
	n, drops         int
	min              int64
	maxIn            int
}

type windowedPermit struct {
	w     *windowed
	start int64
}

func newWindowed(alg Algorithm) *windowed {
	clk := policy.System
	now := clk.Nanotime()
	w := &windowed{clk: clk, alg: alg, windowLen: int64(time.Second), minSamples: 10,
		est: InitialLimit, limit: InitialLimit}
	w.winStart, w.winEnd = now, now+w.windowLen
	return w
}

func (w *windowed) TryAcquire() (Permit, bool) {
	w.mu.Lock()
	if w.inflight >= w.limit {
		w.mu.Unlock()
		return nil, false
	}
	w.inflight++
	w.maxIn = max(w.maxIn, w.inflight)
	w.mu.Unlock()
	return windowedPermit{w, w.clk.Nanotime()}, true
}

func (w *windowed) Limit() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.limit
}

func (p windowedPermit) Release(o Outcome) {
	w := p.w
	now := w.clk.Nanotime()
	lat := now - p.start
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inflight--
	if w.n == 0 || lat < w.min {
		w.min = lat
	}
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
	win := Window{
		RTT:         time.Duration(w.sum / int64(w.n)),
		MinRTT:      time.Duration(w.min),
		MaxInFlight: w.maxIn,
		Samples:     w.n,
		Drops:       w.drops,
		Duration:    time.Duration(now - w.winStart),
	}
	w.est = w.alg.Update(win, w.est)
	w.limit = int(w.est)
	w.winStart, w.winEnd = now, now+w.windowLen
	w.sum, w.n, w.drops, w.min = 0, 0, 0, 0
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

func (g *gradient2) Update(w Window, est float64) float64 {
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
	return clamp(next, MinLimit, MaxLimit)
}

// ---- AIMD, exactly as docs/netflix-algorithms.md gives it (integer limit).

type aimd struct{ backoff float64 }

func (a aimd) Update(w Window, est float64) float64 {
	limit := int(est)
	if w.Drops > 0 {
		limit = int(float64(limit) * a.backoff)
	} else if w.MaxInFlight*2 >= limit {
		limit++
	}
	return clamp(float64(limit), MinLimit, MaxLimit)
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

func (v *vegas) Update(w Window, est float64) float64 {
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
	next = clamp(next, MinLimit, MaxLimit)
	return (1-v.smoothing)*est + v.smoothing*next
}

// Reference returns r4c's windowing running alg. The name says which.
func Reference(name, note string, alg func() Algorithm) Spec {
	return Spec{Name: name, Note: note, New: func() Limiter { return newWindowed(alg()) }}
}
