package adaptivelimit

import "math"

// Little's fixed tuning (the simulator's DefaultCandidateParams, see
// docs/adaptation.md). The package documentation explains each one.
const (
	littleSmoothing   = 0.3  // weight of a window in the smoothed latency
	littleWarmup      = 4    // windows the smoothed latency is a plain mean of
	littleQueueLow    = 0.05 // low queue bound, as a share of the limit
	littleQueueHigh   = 0.15 // high queue bound, as a share of the limit
	littleMinLow      = 1.0  // floor of the low bound, in calls
	littleMinHigh     = 2.0  // floor of the high bound, in calls
	littleNoiseLow    = 2.0  // the low bound's share is at least this many noise units
	littleNoiseHigh   = 3.5  // the high bound's share is at least this many noise units
	littleMaxCut      = 0.5  // a window cuts the limit by at most this share
	littleUnexplained = 0.5  // share of the expected latency fall a queue must show
	littleCheckDrop   = 0.85 // the check needs in-flight at most this share of the reference's
	littleNoiseWeight = 0.1  // weight of a noise observation after the first ten
	littleNoiseClip   = 3.0  // an observation counts at most this many times the noise
	littleHistory     = 4    // windows the check looks back over
)

// littleWindow is a past window as Little's check remembers it.
type littleWindow struct {
	limit, inflight, rtt float64
	clean                bool
}

// little is the state of the Little algorithm. It lives in algorithm and is
// guarded by Limiter.mu like the others; it allocates nothing.
type little struct {
	windows int // windows seen
	warm    int // windows since the first one or the last rebase

	smoothed float64 // smoothed window latency, in nanoseconds
	base     float64 // the no-load baseline: the lowest smoothed latency

	// The previous window, for the noise estimate.
	prevSet                   bool
	prevRTT, prevN, prevLimit float64
	cv                        float64 // estimated coefficient of variation of one latency
	cvCount                   int

	step float64 // next growth step

	past  [littleHistory]littleWindow // the last windows, oldest first
	npast int
}

// noise returns the relative standard deviation of this window's average
// latency, cv/sqrt(samples), after learning cv from this window and the
// previous one if both ran at the same integer limit (a change of limit
// changes latency for real). Two averages of n1 and n2 samples differ by
// cv*sqrt(1/n1+1/n2), and the mean absolute difference of two normal
// draws is 2σ/√π.
func (s *little) noise(rtt, samples, limit float64) float64 {
	if s.prevSet && math.Floor(limit) == math.Floor(s.prevLimit) {
		obs := math.Abs(math.Log(rtt/s.prevRTT)) / math.Sqrt(1/samples+1/s.prevN) * math.Sqrt(math.Pi) / 2
		if s.cvCount < 10 {
			s.cvCount++
			s.cv += (obs - s.cv) / float64(s.cvCount)
		} else {
			s.cv += littleNoiseWeight * (math.Min(obs, littleNoiseClip*s.cv) - s.cv)
		}
	}
	s.prevSet, s.prevRTT, s.prevN, s.prevLimit = true, rtt, samples, limit
	return s.cv / math.Sqrt(samples)
}

// remember appends w to the past windows, dropping the oldest when full.
func (s *little) remember(w littleWindow) {
	if s.npast == littleHistory {
		copy(s.past[:], s.past[1:])
		s.npast--
	}
	s.past[s.npast] = w
	s.npast++
}

// update returns the next estimate from a window's average latency (rtt,
// in nanoseconds), its most calls in flight (n), its samples (at least 1),
// whether it saw a drop and whether it passed LatencyCeiling (overload),
// given the current estimate (limit).
func (s *little) update(cfg *Config, limit, rtt, n, samples float64, dropped, overload bool) float64 {
	s.windows++
	if s.windows == 1 || rtt <= 0 {
		// The first window is biased towards short calls (only calls that
		// began and ended in it are samples): it teaches nothing.
		return limit
	}
	sigma := s.noise(rtt, samples, limit)

	s.warm++
	if s.warm <= littleWarmup {
		s.smoothed += (rtt - s.smoothed) / float64(s.warm)
		s.base = s.smoothed
	} else {
		s.smoothed += littleSmoothing * (rtt - s.smoothed)
		s.base = math.Min(s.base, s.smoothed)
	}
	base := s.base

	// Of n calls in flight, n*(1-base/rtt) are queued (Little's law at
	// constant throughput).
	queue := n * (1 - base/rtt)
	lo := math.Max(littleMinLow, math.Max(littleQueueLow, littleNoiseLow*sigma)*limit)
	hi := math.Max(littleMinHigh, math.Max(littleQueueHigh, littleNoiseHigh*sigma)*limit)

	// A window that began above its limit still carries the queue of the
	// calls admitted before a cut: it judges nothing (but an overloaded
	// window always cuts).
	clean := n <= math.Floor(limit)+1
	cut := overload || clean && (queue > hi || (dropped && queue > lo))

	if cut && !overload {
		// Did latency follow the calls in flight down, as a queue would?
		// Compare with the slowest recent clean window.
		ref := -1
		for i := range s.npast {
			if s.past[i].clean && (ref < 0 || s.past[i].rtt > s.past[ref].rtt) {
				ref = i
			}
		}
		if ref >= 0 && n <= littleCheckDrop*s.past[ref].inflight {
			r := s.past[ref]
			expect := math.Max(base/r.rtt, n/r.inflight)
			if rtt/r.rtt > 1-littleUnexplained*(1-expect) {
				// Not a queue: the dependency got slower. Learn the new
				// normal and undo the cuts.
				s.warm, s.smoothed, s.base = 1, rtt, rtt
				s.npast = 0
				s.step = 1
				return clampFloat(math.Max(limit, r.limit), cfg)
			}
		}
	}
	s.remember(littleWindow{limit, n, rtt, clean})

	next := limit
	switch {
	case cut:
		// Cut to what the dependency serves without a queue (n*base/rtt)
		// plus the low bound: by at least one, at most half.
		target := n*base/rtt + lo
		next = math.Max(limit*(1-littleMaxCut), math.Min(limit-1, target))
		s.step = 1
	case queue < lo && n*2 >= limit:
		// No queue and the limit in use: grow, doubling the step while
		// windows in a row stay clear (up to an eighth of the limit).
		next = limit + s.step
		s.step = math.Min(s.step*2, math.Max(1, limit/8))
	default:
		s.step = 1
	}
	return clampFloat(next, cfg)
}
