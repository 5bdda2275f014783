package adaptivelimit

import (
	"math"
	"time"
)

// algorithm holds the state of the four algorithms; only the configured
// one is used. Each update is applied once per window with the window's
// average latency (rtt), its most calls in flight, its number of samples,
// whether it saw a drop, and whether its latency passed LatencyCeiling
// (overload). The arithmetic of the first three follows Netflix
// concurrency-limits 0.5.4 (Gradient2Limit, AIMDLimit, VegasLimit); see the
// package documentation for where ours differs. Little is r4c's own
// (little.go).
type algorithm struct {
	estimate float64 // Gradient2's, Vegas's and Little's limit; callers see its integer part

	// Gradient2's long-term average of the window latency, in nanoseconds:
	// the plain mean of the first warmupWindows windows, then an
	// exponential average over LongWindow windows.
	longSum   float64
	longCount int
	long      float64

	// Vegas.
	noLoad     float64 // latency without queueing, in nanoseconds
	noLoadSet  bool
	probeCount int     // windows since the last probe
	probes     int     // probes made, for the jitter schedule
	jitter     float64 // the current probe jitter, in [0.5, 1)

	little little
}

// warmupWindows is how many windows Gradient2's long-term average takes as a
// plain mean before it becomes exponential.
const warmupWindows = 10

func (a *algorithm) init(cfg *Config) {
	a.estimate = float64(cfg.InitialLimit)
	a.jitter = probeJitter(0)
}

// figures are what a completed window tells the algorithm.
type figures struct {
	rtt      time.Duration // average latency of the window's samples
	okRTT    time.Duration // ... of those that were not drops (rtt if all were)
	maxIF    int           // most calls in flight during the window
	samples  int           // samples recorded (drops included)
	drops    int           // samples that were drops
	rejects  int           // calls the limiter turned away during the window
	duration int64         // how long the window lasted, in nanoseconds
	now      int64         // clock reading at the end of the window
	overload bool          // rtt passed LatencyCeiling
}

// update returns the new integer limit.
func (a *algorithm) update(cfg *Config, limit int, f figures) int {
	rtt, maxIF, overload := f.rtt, f.maxIF, f.overload
	dropped := f.drops > 0
	switch cfg.Algorithm {
	case Little:
		a.estimate = a.little.update(cfg, a.estimate, f)
	case AIMD:
		return aimdUpdate(cfg, limit, maxIF, dropped || overload)
	case Vegas:
		a.vegas(cfg, float64(rtt), maxIF, dropped || overload)
	default:
		a.gradient2(cfg, float64(rtt), maxIF, overload)
	}
	return int(a.estimate)
}

// longLatency returns Gradient2's long-term average, zero for the others.
func (a *algorithm) longLatency() time.Duration {
	if a.longCount == 0 {
		return 0
	}
	return time.Duration(a.long)
}

// noLoadLatency returns Vegas's no-load latency or Little's baseline, zero
// for the others.
func (a *algorithm) noLoadLatency(alg Algorithm) time.Duration {
	if alg == Little {
		return time.Duration(a.little.r0)
	}
	if !a.noLoadSet {
		return 0
	}
	return time.Duration(a.noLoad)
}

// gradient2 is Netflix's Gradient2Limit.update. With overload (the window
// passed LatencyCeiling) the gradient is its floor, 0.5, whatever the
// long-term average, and the app-limited rule does not apply.
func (a *algorithm) gradient2(cfg *Config, rtt float64, maxIF int, overload bool) {
	if a.longCount < warmupWindows {
		a.longCount++
		a.longSum += rtt
		a.long = a.longSum / float64(a.longCount)
	} else {
		f := 2 / (float64(cfg.LongWindow) + 1)
		a.long = a.long*(1-f) + rtt*f
	}
	r := ratio(a.long, rtt)
	if r > 2 { // recover faster after a long overload
		a.long *= 0.95
	}
	if !overload && float64(maxIF) < a.estimate/2 {
		return // app-limited: latency says nothing about the limit
	}
	gradient := max(0.5, min(1.0, cfg.RTTTolerance*r))
	if overload {
		gradient = 0.5
	}
	next := a.estimate*gradient + float64(cfg.QueueSize)
	next = a.estimate*(1-cfg.Smoothing) + next*cfg.Smoothing
	a.estimate = clampFloat(next, cfg)
}

// ratio returns long/rtt, taking 0/0 as 1 and x/0 as +Inf: a window whose
// average latency is zero (possible on a manual clock) is as fast as it
// gets.
func ratio(long, rtt float64) float64 {
	if rtt <= 0 {
		if long <= 0 {
			return 1
		}
		return math.Inf(1)
	}
	return long / rtt
}

// aimdUpdate is Netflix's AIMDLimit.update; overload counts as a drop.
func aimdUpdate(cfg *Config, limit, maxIF int, dropped bool) int {
	if dropped {
		limit = int(float64(limit) * cfg.BackoffRatio)
	} else if maxIF*2 >= limit {
		limit++
	}
	return min(max(limit, cfg.MinLimit), cfg.MaxLimit)
}

// vegas is Netflix's VegasLimit update with its default functions (alpha
// 3*log10, beta 6*log10, threshold log10, increase and decrease by log10),
// bounded by [MinLimit, MaxLimit]; overload counts as a drop.
func (a *algorithm) vegas(cfg *Config, rtt float64, maxIF int, dropped bool) {
	a.probeCount++
	if a.jitter*float64(cfg.ProbeMultiplier)*a.estimate <= float64(a.probeCount) {
		a.probes++
		a.jitter = probeJitter(a.probes)
		a.probeCount = 0
		a.noLoad, a.noLoadSet = rtt, true
		return
	}
	if !a.noLoadSet || rtt < a.noLoad {
		a.noLoad, a.noLoadSet = rtt, true
		return
	}
	queue := 0.0
	if rtt > 0 {
		queue = math.Ceil(a.estimate * (1 - a.noLoad/rtt))
	}
	est := int(a.estimate)
	var next float64
	switch {
	case dropped:
		next = a.estimate - float64(log10(est))
	case float64(maxIF)*2 < a.estimate:
		return // app-limited
	default:
		lg := log10(est)
		alpha, beta, threshold := float64(3*lg), float64(6*lg), float64(lg)
		switch {
		case queue <= threshold:
			next = a.estimate + beta
		case queue < alpha:
			next = a.estimate + float64(lg)
		case queue > beta:
			next = a.estimate - float64(lg)
		default:
			return
		}
	}
	next = clampFloat(next, cfg)
	a.estimate = (1-cfg.Smoothing)*a.estimate + cfg.Smoothing*next
}

// log10 is Netflix's Log10RootFunction: max(1, floor(log10(n))), computed
// on integers so that powers of ten are exact.
func log10(n int) int {
	d := 0
	for n >= 10 {
		n /= 10
		d++
	}
	return max(1, d)
}

// probeJitter is the k-th probe jitter of Vegas: 0.5 + 0.5*frac((k+1)*φ'),
// with φ' = (√5-1)/2. A fixed low-discrepancy schedule instead of Netflix's
// random draw, so that a limit behaves the same on every run.
func probeJitter(k int) float64 {
	const phi = 0.6180339887498949
	_, frac := math.Modf(float64(k+1) * phi)
	return 0.5 + 0.5*frac
}

func clampFloat(v float64, cfg *Config) float64 {
	return min(max(v, float64(cfg.MinLimit)), float64(cfg.MaxLimit))
}
