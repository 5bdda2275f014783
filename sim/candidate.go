package sim

import "math"

// The design of the Little algorithm, as it was worked out here before it
// went into the library (adaptivelimit.Little): a queue estimate against a
// no-load baseline, like Vegas, with bounds scaled to the measured noise, a
// cut straight to the concurrency Little's law says the dependency serves,
// and a check that tells a queue from a new normal latency.
// docs/adaptation.md gives the reasoning; Update gives the arithmetic. It is
// kept as the library's cross-check (TestLibraryMatchesReference) and to try
// other parameters: the library's tuning is DefaultCandidateParams.

// CandidateParams tune the candidate algorithm.
type CandidateParams struct {
	// Smoothing is the weight of a new window in the smoothed latency whose
	// lowest value is the baseline (the first Warmup windows are a plain
	// mean).
	Smoothing float64
	// QueueLow and QueueHigh bound the estimated queue as a fraction of the
	// limit, with floors MinQueueLow and MinQueueHigh (calls): below the low
	// bound the limit grows, above the high bound it is cut.
	QueueLow, QueueHigh       float64
	MinQueueLow, MinQueueHigh float64
	// NoiseLow and NoiseHigh raise those fractions to that many times the
	// relative noise of a window's average latency, so that a window of few
	// samples does not read as a queue.
	NoiseLow, NoiseHigh float64
	// MaxCut is the most one window may cut the limit by (0.5: halve).
	MaxCut float64
	// Unexplained: before a cut, if a recent slower window had at least
	// 1/0.85 times the calls in flight, latency should have fallen in
	// proportion to the calls in flight (down to the baseline). If it fell
	// by less than this fraction of that, the rise was not a queue: the
	// baseline moves to the new latency and the limit returns to that
	// window's.
	Unexplained float64
	// History is how many past windows the check looks back over.
	History int
}

// DefaultCandidateParams are the library's fixed tuning of Little.
var DefaultCandidateParams = CandidateParams{
	Smoothing: 0.3,
	QueueLow:  0.05, QueueHigh: 0.15,
	MinQueueLow: 1, MinQueueHigh: 2,
	NoiseLow: 2, NoiseHigh: 3.5,
	MaxCut:      0.5,
	Unexplained: 0.5,
	History:     4,
}

const (
	// warmup is how many windows the smoothed latency is a plain mean of
	// (after the first window, and again after a rebase).
	warmup = 4
	// noiseWeight is the weight of a new observation in the noise estimate,
	// after its first ten (a plain mean); an observation counts at most
	// noiseClip times the estimate.
	noiseWeight, noiseClip = 0.1, 3.0
	// checkDrop: the check needs the calls in flight to have fallen to at
	// most this fraction of the reference window's.
	checkDrop = 0.85
)

type pastWindow struct {
	limit, inflight, rtt float64
	clean                bool
}

type candidate struct {
	p       CandidateParams
	windows int // windows seen
	warm    int // windows since the first one or the last rebase

	smoothed float64
	base     float64 // no-load latency: the lowest smoothed latency

	last, lastN, lastLimit float64 // previous window's latency, samples and limit
	cv                     float64 // estimated coefficient of variation of one latency
	cvCount                int

	step float64      // next growth step
	past []pastWindow // the last History windows, oldest first
}

func newCandidate(p CandidateParams) *candidate {
	return &candidate{p: p, step: 1}
}

// noise returns the relative standard deviation of this window's average
// latency: cv/sqrt(samples), with cv learnt from pairs of consecutive
// windows run at the same limit (the limit's own moves change latency for
// real). Two windows' averages differ by cv·sqrt(1/n1+1/n2), and the mean
// absolute difference of two normal draws is 2σ/√π.
func (c *candidate) noise(rtt, samples, limit float64) float64 {
	if c.last > 0 && math.Floor(limit) == math.Floor(c.lastLimit) {
		obs := math.Abs(math.Log(rtt/c.last)) / math.Sqrt(1/samples+1/c.lastN) * math.Sqrt(math.Pi) / 2
		if c.cvCount < 10 {
			c.cvCount++
			c.cv += (obs - c.cv) / float64(c.cvCount)
		} else {
			c.cv += noiseWeight * (math.Min(obs, noiseClip*c.cv) - c.cv)
		}
	}
	c.last, c.lastN, c.lastLimit = rtt, samples, limit
	return c.cv / math.Sqrt(samples)
}

func (c *candidate) remember(w pastWindow) {
	if len(c.past) == c.p.History {
		copy(c.past, c.past[1:])
		c.past = c.past[:len(c.past)-1]
	}
	c.past = append(c.past, w)
}

// Update returns the next limit from a window's figures.
func (c *candidate) Update(w Window, limit float64) float64 {
	rtt := float64(w.RTT)
	n := float64(w.MaxInFlight)
	samples := float64(max(1, w.Samples))
	c.windows++
	if c.windows == 1 || rtt <= 0 {
		// The first window is biased towards short calls (only calls that
		// started and ended in it are samples): learn nothing from it.
		return limit
	}
	sigma := c.noise(rtt, samples, limit)

	// Baseline: the lowest smoothed latency (a plain mean while warming up).
	c.warm++
	if c.warm <= warmup {
		c.smoothed += (rtt - c.smoothed) / float64(c.warm)
		c.base = c.smoothed
	} else {
		c.smoothed += c.p.Smoothing * (rtt - c.smoothed)
		c.base = math.Min(c.base, c.smoothed)
	}
	base := c.base

	// The queue the calls in flight make: of n calls, n·(1-base/rtt) are
	// waiting (Little's law at constant throughput).
	queue := n * (1 - base/rtt)
	lo := math.Max(c.p.MinQueueLow, math.Max(c.p.QueueLow, c.p.NoiseLow*sigma)*limit)
	hi := math.Max(c.p.MinQueueHigh, math.Max(c.p.QueueHigh, c.p.NoiseHigh*sigma)*limit)

	// A window that began above its limit (after a cut) is transitional:
	// its latencies still carry the queue of the calls admitted before the
	// cut, so it cuts nothing and checks nothing.
	clean := n <= math.Floor(limit)+1
	cut := clean && (queue > hi || (w.Drops > 0 && queue > lo))

	if cut {
		// Before cutting: did latency follow the calls in flight down, as a
		// queue would? Compare with the slowest recent clean window.
		var ref *pastWindow
		for i := range c.past {
			if pw := &c.past[i]; pw.clean && (ref == nil || pw.rtt > ref.rtt) {
				ref = pw
			}
		}
		if ref != nil && n <= checkDrop*ref.inflight {
			expect := math.Max(base/ref.rtt, n/ref.inflight)
			if rtt/ref.rtt > 1-c.p.Unexplained*(1-expect) {
				// Not a queue: the dependency got slower. Learn the new
				// normal and undo the cuts.
				c.warm, c.smoothed, c.base = 1, rtt, rtt
				c.past = c.past[:0]
				c.step = 1
				return clamp(math.Max(limit, ref.limit), MinLimit, MaxLimit)
			}
		}
	}
	c.remember(pastWindow{limit, n, rtt, clean})

	next := limit
	switch {
	case cut:
		// Cut to what the dependency serves without a queue (n·base/rtt)
		// plus the low bound, by at least one and at most MaxCut.
		target := n*base/rtt + lo
		next = math.Max(limit*(1-c.p.MaxCut), math.Min(limit-1, target))
		c.step = 1
	case queue < lo && n*2 >= limit:
		// No queue and the limit is in use: grow, doubling the step while
		// windows in a row stay clear (at most an eighth of the limit).
		next = limit + c.step
		c.step = math.Min(c.step*2, math.Max(1, limit/8))
	default:
		c.step = 1
	}
	return clamp(next, MinLimit, MaxLimit)
}
