package adaptivelimit

import "math"

// Little's fixed tuning. The package documentation explains each one.
const (
	littleHeadroom       = 0.07 // cruise this share above the estimated knee
	littleMaxNoiseHead   = 0.2  // plus one noise unit of an epoch's latency, at most this share
	littleMinSamples     = 20   // samples an epoch pools before it is judged
	littleBound          = 0.9  // an epoch fills its limit when Little's law puts this share of it in flight
	littleCruiseSamples  = 100  // ... in cruise
	littleCruiseFew      = 50   // ... or this many, once they span littleCruiseSpan windows
	littleCruiseSpan     = 6    // windows
	littleSlowShare      = 0.5  // a dependency is slow when a call takes this share of a window
	littleSlowGrowth     = 4.0  // slow start grows a slow dependency by at most this much per probe
	littleSlowBias       = 1.5  // its no-load latency from Little's law passes the epoch's mean by at most this factor
	littleSteady         = 0.65 // a window whose completions times latency pass this share of the limit is steady
	littleUnsteady       = 0.6  // ... and one under this share, before the first judgement, is not judged
	littleCVPrior        = 0.7  // per-call latency noise assumed until measured
	littleCVFloor        = 0.3  // and never less than this
	littleCVWeight       = 0.1  // weight of a noise observation after the first ten
	littleCVClip         = 3.0  // a noise observation counts at most this many times cv
	littleTolerance      = 2.5  // a queue must pass the headroom by this many noise units
	littleMinTol         = 0.05 // ... and by at least this share
	littleDeadShare      = 0.2  // a window whose samples from before a change pass this share is not judged
	littleDeadLags       = 1.0  // ... unless it began this many latencies after the change
	littleRampLags       = 2.0  // ... or, after a growth, ends this many latencies after it
	littleUpFirst        = 4    // epochs held in the band before a verified step up
	littleUpMax          = 8    // ... at most, after steps up that found the knee
	littleDeadChange     = 0.1  // changes of the limit smaller than this (log) open no dead time
	littleClimb          = 2    // in slow start, calls in flight that rose by this many since the last epoch still climb
	littleClimbShare     = 0.1  // ... and by this share
	littleDeadExcess     = 1.25 // a window whose most calls in flight pass the limit by this much is not judged
	littleDropShare      = 0.3  // a window with more drops than this share is overload
	littleDropExcess     = 0.15 // ... and so is one this far above the usual drop share
	littleDropNoise      = 3.0  // ... and this many noise units of a window's drop share above it
	littleAppDrops       = 0.05 // drops above the usual share while the limit does not bind: the limit is too high to matter
	littleLatencyJump    = 3.0  // a latency this many times the no-load latency is overload
	littleMaxCut         = 0.5  // one decision cuts the limit by at most half
	littleDeepCut        = 0.1  // ... or, in overload with littleDeepSamples samples (or littleMinSamples all drops), to a tenth
	littleDeepSamples    = 50
	littleMinVerify      = 0.05    // a verified change moves the limit (log) by at least this
	littleMaxVerify      = 0.12    // ... and needs no more than this
	littleVerifyNoise    = 5.0     // ... between them, this many noise units
	littleFastShare      = 0.9     // slow start grows four times per probe only after a probe goodput followed this closely
	littleFastNoise      = 1.5     // ... or within this many noise units of following it in full
	littleSigmaE         = 0.57    // the noise of e per unit of tolerance and log change: sqrt(2)/2.5
	littleNoisyE         = 0.5     // a new normal whose e has a larger noise unit is pooled with r0
	littleDescent        = 0.25    // above the knee with no no-load latency, a step down cuts to this share
	littleDescentSamples = 50      // ... when a window has four times this many samples; a half otherwise
	littleBelowKnee      = 0.75    // goodput followed a change by at least this share: below the knee
	littleAboveKnee      = 0.25    // goodput followed a change by at most this share: above the knee
	littleStepFirst      = 1.0 / 8 // the first accelerated growth, as a share of the limit
	littleR0Samples      = 400     // the no-load latency averages over at most this many samples
	littleRestoreShare   = 0.4     // a cut that goodput followed this much, latency staying high, is tested by going back up
	littleProofCut       = 0.88    // a probe that proves the no-load latency cuts the limit to this share
	littleProofMin       = 4       // ... when the limit is at least this many calls
	littleProofAfter     = 2       // epochs in cruise before a probe proves an unproven no-load latency
	littleProofEvery     = 120     // epochs between probes of a proven no-load latency
	littleFollowed       = 0.75    // latency that fell by this share of a cut (log) fell with the limit: a queue
	littleCutDrops       = 0.01    // a cut where drops pass this share of goodput cuts by no more than the queue
	littleUnderShare     = 0.1     // an epoch whose calls in flight stay under the limit on average and that turns away at most this share is underload
	littleShedShare      = 0.002   // ... and one that turns away more than this share of calls with no queue grows
	littlePeakUnits      = 3       // ... to the calls in flight on average plus this many of their random units (√n)
)

// The phases of Little.
const (
	littleStart   uint8 = iota // nothing measured under a full limit yet
	littleSlow                 // growing by doubling while goodput follows
	littleDescend              // above the knee with no no-load latency yet: stepping down
	littleCruise               // near the knee
)

// littleRef is the epoch before a change of the limit, kept to verify the
// change by how goodput and latency answered it.
type littleRef struct {
	limit, x, rtt float64
	ok            float64 // its latency of calls that were not drops
	all           float64 // its completions a nanosecond, drops included
	step          float64 // the smallest change it can verify
	set           bool
	steady        bool    // its latency is that of the calls in flight (Little's law)
	k             float64 // its samples that were not drops
	under         bool    // it was underload (little.under)
}

// little is the state of the Little algorithm. It lives in algorithm and is
// guarded by Limiter.mu like the others; it allocates nothing.
type little struct {
	windows int
	phase   uint8

	r0     float64 // no-load latency in nanoseconds, of the calls that succeed
	r0a    float64 // and the time a call holds its slot at no load, drops included
	r0w    float64 // samples behind r0
	r0ok   bool    // r0 is known
	proven bool    // r0 was measured at a limit shown to be below the knee
	f0     float64 // usual drop share when there is no queue
	head   float64 // the headroom: littleHeadroom plus one noise unit of an epoch

	// Noise: cv is the estimated coefficient of variation of one call's
	// latency, learned from epochs at the same limit.
	cv                   float64
	cvCount              int
	prevSet              bool
	prevRTT, prevK, prev float64

	// The epoch: clean windows pooled since the last decision.
	ek, ed, esum, edur, emax float64
	eok                      float64 // latency of the epoch's calls that were not drops
	erej                     float64 // calls the limiter turned away during the epoch
	emaxPrev                 float64 // emax of the last epoch judged
	edurPrev                 float64 // and its duration
	appRTT                   float64 // the latency of the last epoch, if the limit did not bind in it
	appX                     float64 // and its goodput

	// The last change of the limit: when, the latency then and the limit
	// before it, for the dead time during which the calls admitted before
	// it still complete.
	chgAt   int64
	chgLag  float64
	chgN    float64
	chgDown bool

	ref        littleRef // the epoch before the last change, for one epoch
	trail      littleRef // the epoch before cruise began following its target up, kept until the steps add up to a verifiable one
	verifyStep float64   // the smallest change of the limit (log) that an epoch can verify
	probing    bool      // the last change was a probe of the no-load latency
	since      int       // epochs in cruise since the last probe
	step       float64   // the next accelerated growth, as a share of the limit
	streakRTT  float64   // the latency when the current streak of growth began
	streakL    float64   // and the limit
	hold       int       // epochs held in the band since the last move
	suspect    bool      // the last epoch showed a queue the noise could explain
	upEvery    int       // epochs held before a verified step up
	steady     bool      // the last epoch judged was steady: its completions times latency were its calls in flight
	restore    float64   // the latency at the lower limit while going back up tests a new normal
	restoreA   float64   // and its time in the slot, drops included
	lastE      float64   // the share of the last verified change that throughput followed
	lastEN     float64   // and its noise unit
	overLimit  float64   // the limit an overload cut came from, while the no-load latency is unknown
	overRTT    float64   // and the latency there
	overX      float64   // the most goodput served by a limit found above the knee, while it is unknown
	descX      float64   // and by the limit the last step of the descent came from
	preGrow    float64   // the limit before a growth that no epoch has judged yet
	backTo     float64   // the limit an overshoot was cut back to, while later cuts take the limit below it
	ceil       float64   // the lowest limit cut for overload, until a growth past it is answered
	guessL     float64   // the limit the no-load latency was guessed at, until it is learnt afresh
	bound      bool      // the last epoch's calls in flight filled its limit on average
	under      bool      // the last epoch was underload: its calls in flight did not fill the limit, and it turned few calls away
	lastX      float64   // the goodput of the last epoch judged
	lastL      float64   // and its limit
	lastAll    float64   // and its completions, drops included
	lastOK     float64   // and its latency of calls that were not drops
	lastK      float64   // and how many they were
	dropRef    littleRef // the limit and goodput before a cut on drops alone, to verify it
	dropF      float64   // the drop share that made that cut
	w1         float64   // the latency of the calls that succeeded in the first window
	failL      float64   // the integer part of a limit that a growth, cut for overload with r0 known, went back to
}

// update returns the next estimate from a window's figures, given the
// current estimate (limit).
func (s *little) update(cfg *Config, limit float64, f figures) float64 {
	s.windows++
	if s.upEvery == 0 {
		s.upEvery = littleUpFirst
	}
	rtt, k, d, dur := float64(f.rtt), float64(f.samples), float64(f.drops), float64(f.duration)
	// Latency as a sign of a queue is read on the calls that succeeded: a
	// call that timed out reports its timeout, however long the dependency
	// would have taken, and one such call among a few dozen moves the mean
	// by more than any queue would. Drops have their own test (their share
	// against the usual one). Little's law (calls in flight) takes all.
	rs := float64(f.okRTT)
	if k <= 0 || dur <= 0 {
		return limit
	}
	if s.windows == 1 && k > d {
		s.w1 = rs
	}
	// The calls in flight at the last change still complete in the windows
	// after it, with the latency of before: a window is judged once they
	// are a small share of its samples or had time to end. The first
	// window is biased towards short calls (only calls that began and
	// ended in it are samples) and is judged only for overload.
	start := f.now - f.duration
	lags := 1.0 // after a growth the calls of before have the latency of now
	if s.chgDown {
		lags = littleDeadLags // after a cut they carry the queue of before
	}
	dead := s.windows > 1 && float64(start-s.chgAt) < lags*s.chgLag && s.chgN > littleDeadShare*k &&
		// After a growth the new slots fill within a latency: a window
		// that lasts a few latencies past the change is mostly steady.
		(s.chgDown || float64(f.now-s.chgAt) < littleRampLags*s.chgLag) ||
		// It began with more calls in flight than the limit allows now (a
		// cut): it measured the limit before.
		float64(f.maxIF) > math.Floor(limit)*littleDeadExcess+1
	if !dead || !s.chgDown {
		// After a growth the calls of before only make the window look
		// better: overload still shows.
		if next, ok := s.overloaded(cfg, limit, f, rtt, rs, k, d, dur); ok {
			return next
		}
	} else if k2, d2 := k-s.chgN, d-s.chgN; k2 >= littleMinSamples && d2 >= 3 &&
		d2/k2 > math.Max(littleDropShare, s.f0+s.dropExcess(d2/k2, k2)) {
		// After a cut, the calls in flight before it (at most chgN) may
		// all time out in the window: counted as drops, the calls
		// admitted since still drop well above their usual share. The
		// limit after the cut is overloaded too: waiting a window more
		// for it to be judged lets the work of abandoned calls pile up.
		f.overload = false
		if next, ok := s.overloaded(cfg, limit, f, rtt, rs, k2, d2, dur); ok {
			return next
		}
	}
	slow := rtt >= littleSlowShare*float64(cfg.Window)
	if s.windows > 1 && s.phase == littleStart && !s.ref.set && float64(f.maxIF) >= math.Floor(limit) &&
		k/dur*rtt < littleUnsteady*math.Floor(limit) {
		// By Little's law the calls in flight are the completions a
		// second times their latency. Before the first judgement, a
		// window whose completions and latency account for much fewer
		// calls than the limit held in flight is not steady yet: only
		// the short calls admitted at the start have completed, the long
		// ones are still in flight, and its latency is biased low. A
		// reference taken from it would make every later latency look
		// like a queue. Another window tells.
		dead = true
	}
	// A window at the limit holds fewer samples than an epoch needs.
	few := math.Floor(limit)*float64(cfg.Window) < littleMinSamples*rtt
	one := math.Floor(limit) <= 1 // one call at a time: no call is cut short by the window's start
	if dead || s.windows == 1 && !(slow && f.duration >= 2*int64(cfg.Window)) && !one {
		// The first window is judged only where the dependency is so
		// slow that it had to be stretched to gather its samples: it then
		// spans a few latencies, and waiting for another costs seconds.
		return limit
	}
	s.ek += k
	s.ed += d
	s.esum += rtt * k
	s.eok += rs * (k - d)
	s.erej += float64(f.rejects)
	s.edur += dur
	s.emax = math.Max(s.emax, float64(f.maxIF))
	if s.phase == littleCruise && s.ek < littleCruiseSamples && !s.clearQueue(cfg, limit) && math.Floor(limit) > 1 && !(s.backFar(limit) && s.ek >= littleMinSamples) &&
		!(s.ek >= littleCruiseFew && s.edur >= littleCruiseSpan*float64(cfg.Window)) ||
		s.ek < littleMinSamples && s.phase == littleCruise ||
		s.phase == littleStart && s.ek < littleMinSamples && !((slow || few) && s.ek >= math.Min(littleMinSamples/2, 2*math.Floor(limit))) {
		// Cruise and the first judgement pool enough samples to trust
		// (the first, half as many from a slow dependency, whose windows
		// are seconds long at a low limit, or wherever a window at the
		// limit holds fewer than littleMinSamples, such as one call at a
		// time of a few hundred milliseconds: it only sets the reference
		// the first doubling is verified against; and no more than two
		// a slot, which a window of such a limit ends on: one call at a
		// time of 1.8 s gathers 10 samples in 18 s, 2 in 3.6 s); slow start and the descent
		// judge each window, since they move the limit by twice or more.
		// Cruise pools littleCruiseSamples, since it moves the limit by
		// a few percent and verifies each move, but a queue so clear
		// that fewer samples show it is answered as soon as they do.
		// At a limit of one call, any move is by a call or more (twice
		// the limit): littleMinSamples verify it. So do they the move
		// back to the limit before an overshoot (backTo): several times
		// the limit, like slow start's. At a slow dependency's small
		// limit, littleCruiseSamples take tens of seconds (a limit of 5 at
		// 720 ms completes 7 calls a second), and a limit cut too deep
		// waits that long for its first growth: half as many samples do
		// once they span littleCruiseSpan windows. The noise unit is the
		// epoch's own, so fewer samples widen the tolerance rather than
		// mislead.
		return limit
	}
	return s.decide(cfg, limit, f.now)
}

// overloaded handles a window that shows overload whatever else it says:
// LatencyCeiling passed, drops well above their usual share, or a latency
// far above the no-load one. It cuts at once, by at most half.
func (s *little) overloaded(cfg *Config, limit float64, f figures, rtt, rs, k, d, dur float64) (float64, bool) {
	drops := d >= 3 && d/k > math.Max(littleDropShare, s.f0+s.dropExcess(d/k, k))
	strong := f.overload || drops || (s.r0ok && k >= 5 && rs > littleLatencyJump*s.r0)
	if !strong {
		return 0, false
	}
	if s.ceil == 0 || limit < s.ceil {
		s.ceil = limit
	}
	if !drops {
		// Overload without timeouts leaves no backlog of abandoned calls
		// behind: whatever the limit is cut to, the dependency is slower.
		// (Timeouts do: calls the dependency still runs after their
		// clients gave up can overload the limits below for a while, and
		// a growth that overloaded it keeps the limit it is cut back to.)
		s.backTo = 0
	}
	if ref := s.ref; ref.set && ref.limit < limit {
		// The growth that led here went past the knee: back below it.
		if !s.r0ok {
			s.phase = littleDescend
			s.probing, s.step, s.restore = false, 0, 0
			s.overX = math.Max(s.overX, (k-d)/dur)
			return s.change(cfg, limit, ref.limit*descent(k), f.now, rtt), true
		}
		// The epoch before the growth was no overload (it would have
		// been cut): back to its limit, no further. Cutting below it
		// too would take the limit under the knee for as long as cruise
		// takes to grow back.
		next := ref.limit
		if s.phase == littleSlow {
			// Slow start's growth, fourfold for a slow dependency: the
			// knee may lie anywhere up to the upper limit, and going back
			// to the lower one leaves cruise seconds of growth to do.
			// Above the knee goodput is what the dependency serves:
			// Little's law on it and the no-load latency places the knee,
			// kept within the growth's lower half. (Where timeouts or a
			// processor-sharing dependency depress that goodput, the
			// lower limit stands; a doubling's lower half is the lower
			// limit itself.)
			next = math.Max(ref.limit, math.Min(s.target((k-d)/dur, s.r0), limit*littleMaxCut))
		}
		if s.phase == littleCruise {
			s.failL = math.Floor(next)
		}
		s.phase = littleCruise
		s.ref.set, s.probing, s.step, s.restore = false, false, 0, 0
		if drops {
			s.backTo = next
		}
		return s.change(cfg, limit, next, f.now, rtt), true
	}
	if s.r0ok && s.preGrow > 0 && math.Floor(s.preGrow) < math.Floor(limit) {
		// Likewise after a growth of cruise that no epoch has judged yet.
		s.phase = littleCruise
		s.ref.set, s.probing, s.step, s.restore = false, false, 0, 0
		if drops {
			s.backTo = s.preGrow
		}
		s.failL = math.Floor(s.preGrow)
		return s.change(cfg, limit, s.preGrow, f.now, rtt), true
	}
	floor := littleMaxCut
	// Enough samples to trust a deep cut: littleDeepSamples, or
	// littleMinSamples that all timed out (a slow dependency started far
	// above its knee completes a few dozen calls a window, every one a
	// timeout, and halving a window at a time lets abandoned work pile up).
	// (Not on drops that were all admitted before the last cut: the
	// backlog of the limit before it times out whatever the limit is now,
	// and a cut to a tenth on it takes a limit that Little's law had just
	// placed at the knee far below it.)
	deep := (k >= littleDeepSamples || d == k && k >= littleMinSamples) && !s.backlogDrops(f)
	if deep {
		floor = littleDeepCut
	}
	next := limit * littleMaxCut
	if deep && d/k > 1-littleMaxCut {
		// Most calls time out: cut by the share that does.
		next = limit * math.Max(littleDeepCut, 1-d/k)
	}
	s.dropRef.set = false
	if !f.overload && !(s.r0ok && rs > littleLatencyJump*s.r0) {
		// Drops alone: the overload is as deep as they pass their usual
		// share. A heavy tail under a tight timeout drops a steady share
		// anyway, and a window that passes it by a little is cut by a
		// little (by twice the excess), not by half.
		floor = math.Max(floor, 1-2*(d/k-s.f0))
		next = math.Max(next, limit*floor)
		// The cut is verified like a move: the goodput before it is that
		// of the last epoch at this limit (the window itself, picked for
		// its drops, understates it).
		xr := (k - d) / dur
		if math.Floor(s.lastL) == math.Floor(limit) {
			xr = math.Max(xr, s.lastX)
		}
		s.dropRef, s.dropF = littleRef{limit: limit, x: xr, set: true}, d/k
	}
	if s.r0ok {
		next = math.Max(limit*floor, math.Min(next, s.target(k/dur, s.r0a)))
		s.phase = littleCruise
	} else {
		s.phase = littleDescend
		s.overX = math.Max(s.overX, (k-d)/dur)
		if est := littleTarget(k/dur, s.w1); s.overLimit == 0 && s.w1 > 0 && est < next {
			// The first cut for overload, with no no-load latency yet:
			// the first window's calls began with the dependency empty,
			// and their latency (biased low, towards the short calls)
			// puts the knee at about this window's completions times it,
			// by Little's law. Cut there at once rather than halving a
			// window at a time; the descent goes on from there, or slow
			// start finds the knee above.
			next = math.Max(est, limit*littleDeepCut)
			s.w1 = 0 // spent: later cuts find their own way
		} else if s.overLimit == 0 || limit < s.overLimit {
			s.overLimit, s.overRTT = limit, rs // the lowest limit seen overloaded
		}
	}
	s.ref.set, s.probing, s.step, s.restore = false, false, 0, 0 // an overloaded window is no reference
	return s.change(cfg, limit, math.Min(next, limit-1), f.now, rtt), true
}

// backlogDrops reports whether the window's drops were all admitted before
// the last cut. A call that times out reports its timeout as its latency,
// so the drops were admitted a drop's latency before they ended: where that
// is before the cut for every one of them, they are the backlog the limit
// before the cut let in. They say that limit was overloaded, not how deeply
// the limit since is.
func (s *little) backlogDrops(f figures) bool {
	if !s.chgDown || f.drops <= 0 {
		return false
	}
	k, d := float64(f.samples), float64(f.drops)
	dropRTT := (float64(f.rtt)*k - float64(f.okRTT)*(k-d)) / d
	return float64(f.now)-dropRTT < float64(s.chgAt)
}

// backFar reports whether the limit is more than a call below backTo.
func (s *little) backFar(limit float64) bool {
	return math.Floor(s.backTo) > math.Floor(limit)+1
}

// decide judges the pooled epoch and returns the next estimate.
func (s *little) decide(cfg *Config, limit float64, now int64) float64 {
	s.preGrow = 0 // this epoch judges the last growth
	k, d := s.ek, s.ed
	rtt := s.esum / k // the time a call held its slot
	rs, ks := rtt, math.Max(1, k-d)
	if k > d {
		rs = s.eok / (k - d) // the latency of the calls that succeeded
	}
	all := k / s.edur     // samples per nanosecond
	x := (k - d) / s.edur // goodput
	// The limit binds, or the calls in flight still climb towards it
	// after a growth: then the latency is not the no-load one of a
	// dependency that keeps up, but that of the calls the growth let in,
	// queue included.
	// (A climb counts only after an epoch whose calls in flight filled
	// the limit on average, by Little's law, not only at a peak: under
	// the capacity the calls in flight wander up and down with arrivals,
	// and a growth they never asked for would seem unanswered.)
	// (And only while the limiter turns calls away: calls in flight that
	// climb after a growth with no call rejected are the demand's own
	// wandering under a limit that no longer binds, not new slots filling
	// up. Under MaxWait a call waits instead of being rejected, and the
	// count says nothing.)
	full := s.emax >= math.Floor(limit) ||
		s.bound && climbed(s.emaxPrev, s.emax) && s.phase == littleSlow &&
			(s.erej > 0 || cfg.MaxWait > 0)
	n, fl := all*rtt, math.Floor(limit) // calls in flight by Little's law, and the limit callers see
	s.bound = n >= littleBound*fl
	prevMax := s.emaxPrev
	s.emaxPrev, s.edurPrev = s.emax, s.edur
	// By Little's law a steady epoch at a binding limit completes limit
	// calls per latency. Far fewer: soon after a growth only the short
	// calls of the new slots have completed and its latency is biased
	// low; more: the calls of before a cut still complete, with the queue
	// of before. Neither is a no-load latency to learn.
	// (More, overFull, is an epoch that cruise does not judge at all.)
	overFull := full && n > littleDeadExcess*fl+1
	s.steady = !full || n >= littleUnsteady*fl && !overFull
	sigma := s.noise(rs, ks, limit)
	tol := math.Max(littleMinTol, littleTolerance*sigma) // a queue must pass the noise by this share to count
	// The smallest change the next epoch can verify: goodput and latency
	// must move by several noise units.
	s.verifyStep = math.Min(littleMaxVerify, math.Max(littleMinVerify, littleVerifyNoise*sigma))
	s.head = littleHeadroom + math.Min(math.Min(sigma, littleCVPrior/math.Sqrt(k)), littleMaxNoiseHead)
	rej := s.erej
	// Underload: the calls in flight stayed under the limit on average
	// (Little's law), and the limit turned away a small share of the
	// calls at most, at the demand's peaks. Overload turns away the
	// share it passes the capacity by, and at small limits the gaps
	// between arrivals keep the calls in flight a little under it too.
	s.under = !s.bound && rej <= littleUnderShare*(k+rej)
	s.ek, s.ed, s.esum, s.edur, s.emax, s.eok, s.erej = 0, 0, 0, 0, 0, 0, 0
	// A reference is good for the first epoch after its change only: a
	// later one would mix in whatever else changed since.
	ref, probing := s.ref, s.probing
	s.ref.set, s.probing = false, false

	prevX := s.lastX
	s.lastX, s.lastL, s.lastAll, s.lastOK, s.lastK = x, limit, all, rs, ks
	if dr := s.dropRef; dr.set {
		s.dropRef.set = false
		if lnL := math.Log(math.Floor(limit) / math.Floor(dr.limit)); lnL < 0 && s.r0ok && s.phase == littleCruise && k >= littleDeepSamples &&
			math.Log(x/dr.x)/lnL >= littleBelowKnee && rs <= s.r0*(1+s.headroom()+tol) {
			// A cut on drops alone that goodput followed, with no queue
			// at the lower limit: the limit was not above the knee, and
			// the drops were the dependency's own (a heavy tail under a
			// tight timeout drops more at the knee than below it). Back
			// up, and take that share as usual, so that it no longer
			// cuts.
			s.f0 = math.Max(s.f0, s.dropF-littleDropExcess)
			return s.change(cfg, limit, dr.limit, now, rtt)
		}
	}
	if s.under && full && s.r0ok && rs <= s.r0*(1+s.headroom()+tol) {
		// Underload with no queue, at a limit the demand reached at its
		// peaks: the dependency keeps up with the demand, and the calls
		// that time out are its tail's at no load. That share is the
		// usual one (less its noise): an unbound limit is not brought
		// down for it, nor is cruise cut. (A limit the demand never
		// reached says no such thing: under an overload of 1.2x, a limit
		// far above the knee fills slowly, its calls in flight under it
		// and none turned away, while the queue grows.)
		s.f0 = math.Max(s.f0, d/k-s.dropNoise(d/k, k))
	}
	if !full && d >= 3 && d/k > s.f0+math.Max(littleAppDrops, s.dropNoise(d/k, k)) {
		// The limit did not bind, yet calls time out: the dependency does
		// not keep up and the limit is too high to matter (in-flight calls
		// are bounded by the timeouts). Bring it down to where it binds:
		// the peak of calls in flight, no lower, so that the next epoch
		// judges a binding limit. (Below the peak by the share of drops,
		// as before, it shed calls in underload wherever a heavy tail
		// under a tight timeout drops a tenth of its calls anyway.)
		// (Only drops past their noise: an epoch of a slow dependency
		// holds a dozen samples, and one slow call of a heavy tail that
		// times out in it is a twelfth of them.)
		s.phase = littleDescend
		if s.r0ok {
			s.phase = littleCruise
		}
		return s.change(cfg, limit, math.Max(limit*littleDeepCut, s.emaxPrev), now, rtt)
	}
	if !full {
		// The limit did not bind: the dependency kept up, so the latency is
		// (close to) its no-load latency.
		if climb := math.Log(rs / s.appRTT); !s.proven && s.appRTT > 0 && s.appX > 0 &&
			climb > math.Max(2*tol, littleClimbShare) && math.Log(x/s.appX) < math.Min(climb/4, tol) &&
			climbed(prevMax, s.emaxPrev) {
			// Not yet: the limit does not bind, yet from one epoch to the
			// next the calls in flight climbed (their peak with them) and
			// the latency with them while goodput stayed within its noise
			// (a slow dependency still filling up after the start shows
			// the same climb, but its goodput climbs too, as its longer
			// calls begin to complete): a queue grows in front of a
			// saturated dependency, the limit far above its knee. Latency is then calls in flight over throughput and no
			// no-load latency at all. The knee is at most the goodput times
			// the lower latency (Little's law, each at least the no-load
			// latency): cut there at once rather than wait for the queue to
			// reach the limit, and look for the knee below.
			next := math.Min(limit, math.Max(x*math.Min(rs, s.appRTT), 1))
			s.phase, s.r0ok, s.appRTT, s.appX, s.overLimit = littleDescend, false, 0, 0, 0
			// The latency of these epochs differed by the queue that grew,
			// not by noise: forget what noise() learnt from them.
			s.cv, s.cvCount, s.prevSet = 0, 0, false
			s.ref.set, s.probing, s.step, s.restore = false, false, 0, 0
			return s.change(cfg, limit, next, now, rtt)
		}
		if grow := math.Log(s.emaxPrev / math.Max(1, prevMax)); s.r0ok && rs > s.r0*(1+s.headroom()+tol) && prevX > 0 &&
			climbed(prevMax, s.emaxPrev) && math.Log(x/prevX) < grow/2 {
			// Not a no-load latency: the peak of calls in flight climbed
			// since the last epoch, goodput did not climb with it (by less
			// than half as much), and the latency is above the band over
			// r0. A queue grows in the dependency under a limit too high
			// to bind (an overload of 1.2x fills it at a fifth of the
			// capacity a second): learning its latency would ratchet r0
			// up onto the queue, epoch after epoch. A dependency still
			// filling up after a growth climbs too, but its goodput climbs
			// with its calls in flight. The epoch teaches nothing; once the
			// queue reaches the limit, the latency against r0 says cut.
			return limit
		}
		// Until two epochs agree, each replaces the last (early epochs of
		// a slow dependency see only its shortest calls).
		s.learnR0(rs, rtt, k, !s.proven)
		// A queue that still grows (the limit far above the knee, and the
		// in-flight calls bounded by the load) looks like this too, but not
		// for two epochs in a row at the same latency.
		if s.appRTT > 0 && math.Abs(math.Log(rs/s.appRTT)) <= tol {
			s.proven = true
		}
		s.appRTT, s.appX = rs, x
		s.f0 += 0.2 * (d/k - s.f0)
		if s.phase != littleCruise {
			s.phase = littleSlow
		}
		return limit
	}
	s.appRTT, s.appX = 0, 0
	if ref.set {
		if next, ok := s.verify(cfg, ref, probing, limit, x, rtt, rs, k, tol, now); ok {
			return next
		}
	} else if tr := s.trail; tr.set && s.phase == littleCruise && math.Log(math.Floor(limit)/math.Floor(tr.limit)) >= tr.step*0.99 {
		// Cruise followed Little's target up by steps each too small to
		// verify; together they are not. Goodput that followed them at
		// a flat latency says the limit is below the knee (an r0
		// learnt low holds it there: the latency at any limit below the
		// knee sits in the band over it, and no streak of growth
		// starts), and verify learns that as for a verified step up.
		// (Only that: a trail that went past the knee is left to cruise's
		// own rules, since the limit it began at is epochs old.)
		s.trail.set = false
		if tr.x > 0 && followed(tr, math.Log(limit/tr.limit), x, rs) >= littleBelowKnee {
			if next, ok := s.verify(cfg, tr, false, limit, x, rtt, rs, k, tol, now); ok {
				return next
			}
		}
	}

	if s.phase != littleCruise {
		s.backTo = 0 // only cruise comes back to it: a descent or slow start finds its own way
	}
	switch s.phase {
	case littleStart, littleSlow:
		if s.phase == littleSlow && (rs > s.r0*(1+s.headroom()+tol) ||
			s.steady && s.lastE < littleFastShare && s.r0w >= littleR0Samples/2 &&
				rs > s.r0*(1+math.Max(2*tol, s.headroom()/2))) {
			// A queue: the knee is below. (Not only once it passes the
			// headroom: where goodput did not quite follow the last
			// doubling either, a rise of latency by twice what the noise
			// explains, against a no-load latency pooled from enough
			// samples that its own noise is small, says it reached past
			// the knee, and the next would overshoot by twice as much.
			// Little's law places the knee from here. A false alarm costs
			// more than one overshoot, which the next epoch undoes: cruise
			// grows slowly, hence the margins.)
			s.phase = littleCruise
			return s.cut(cfg, limit, x, all, rtt, now)
		}
		if limit >= float64(cfg.MaxLimit) {
			if s.phase == littleStart {
				s.phase = littleDescend
			} else {
				s.phase = littleCruise
			}
			return limit
		}
		// Probe upwards: below the knee goodput doubles with the limit.
		// Where the latency is long against the epoch, each probe also
		// waits out a dead time: once the no-load latency is known, grow
		// four times per probe instead, after a probe that goodput
		// followed closely, or within its noise (an epoch of a few dozen
		// samples of a slow dependency reads a probe followed in full as
		// followed by 0.7 as easily as by 1).
		factor := 2.0
		if s.r0ok && s.phase == littleSlow && rtt > 0.5*s.edurPrev && s.lastE >= math.Min(littleFastShare, 1-littleFastNoise*s.lastEN) {
			factor = 4
		}
		if s.phase == littleStart && !ref.set && rtt >= littleSlowShare*float64(cfg.Window) && s.edurPrev >= 2*float64(cfg.Window) && d == 0 && all*rtt >= littleSteady*math.Floor(limit) {
			// The first judgement of a slow dependency, on a window
			// stretched over several latencies whose calls in flight are
			// what its completions and latency account for (Little's law):
			// steady, with no queue growing, as a window that began with
			// an empty dependency is only below its knee. Slow start would
			// have doubled once a latency in it: grow by as much, up to
			// four times.
			factor = math.Max(factor, math.Min(littleSlowGrowth, math.Exp2(s.edurPrev/rtt-1)))
		}
		if factor > 2 && s.ceil > 0 && factor*limit > s.ceil {
			// Past a limit that was cut for overload, a slow
			// dependency's fourfold growth could land at four times its
			// knee, where a processor-sharing dependency slows every call
			// fourfold and a timeout of 3x drops them all: double only,
			// as TCP's slow start stops at its threshold. A growth past
			// that limit that goodput answered forgets it.
			factor = 2
		}
		return s.move(cfg, limit, factor*limit, x, rtt, now)
	case littleDescend:
		if s.under && d/k <= s.f0+littleDropShare {
			// The calls in flight filled the limit at a peak only: on
			// average, by Little's law, they were well under it. Above
			// the knee a queue holds them at the limit; well under it,
			// the arrivals, not the dependency, set how many there are,
			// and the latency is the no-load one. Nothing says the knee
			// is below: grow from here as at the start, until a queue
			// shows. (A tail that times out under a tight timeout drops
			// its share at no load too: a limit brought down to the
			// peak for those drops is not overloaded.)
			s.learnR0(rs, rtt, k, true)
			s.phase = littleSlow
			s.overLimit, s.overX, s.descX = 0, 0, 0
			return limit
		}
		if s.overLimit > 0 && 2*limit < s.overLimit &&
			!(s.overRTT > 0 && math.Log(rs/s.overRTT) < littleFollowed*math.Log(limit/s.overLimit)) {
			// Cut here by overload, and half or less of the limit that
			// was overloaded: the knee may lie above as well as below.
			// Probe upwards first, as at the start. (Unless the latency
			// fell nearly in proportion to the limit: above the
			// knee latency is calls in flight over throughput, in
			// proportion to the limit, while below it, it stays at the
			// no-load latency. It still carries the queue: the knee is
			// below.)
			s.overLimit = 0
			s.phase = littleStart
			return s.move(cfg, limit, 2*limit, x, rtt, now)
		}
		s.overLimit = 0
		if limit <= float64(cfg.MinLimit) {
			// Nothing below to try: the latency at the lowest limit is
			// the no-load latency. Where the knee is above, nothing
			// says: the descent was overload all the way down, which at
			// the lowest limit was not the limit's (the dependency still
			// working off calls its clients gave up, or a capacity that
			// came back). Grow from here as at the start, until a queue
			// shows.
			s.learnR0(rs, rtt, k, true)
			s.proven = true
			s.phase = littleSlow
			s.overX, s.descX = 0, 0 // the descent is over
			return limit
		}
		// This epoch becomes the upper limit of the next step; the one
		// before it is now above that.
		s.overX, s.descX = math.Max(s.overX, s.descX), x
		return s.move(cfg, limit, limit*descent(k), x, rtt, now)
	}

	// Cruise. By Little's law all*r0 calls in flight serve all calls a
	// second without a queue: the target is that plus the headroom. Above
	// the knee it is the knee whatever the limit; below it, it is the limit
	// plus the headroom, so following it grows the limit.
	q := rs/s.r0 - 1
	// Two rules fold a steady epoch into r0; it is folded once whichever
	// applies.
	if s.steady && (q < -tol || math.Floor(limit) <= 1 && !probing && d/k <= s.f0+littleDropExcess) {
		// Faster than the no-load latency by more than the noise: r0
		// was learnt high (the first epochs of a heavy tail or of a
		// bimodal dependency are biased either way) or the dependency
		// got faster. Fold the epoch in, pooled by samples, so one
		// lucky epoch moves r0 by its share only. (Waiting for two
		// such epochs in a row rarely saw them: the growth that
		// follows a fast epoch takes the next one back to the knee.)
		//
		// Or: one call at a time queues nothing here, so each epoch's
		// latency is the no-load latency. Fold it in, since one measured
		// from a first short epoch errs by its noise, and one that errs
		// low keeps the limit at one for ever (the target of Little's law
		// cannot pass 1.5 from there).
		s.learnR0(rs, rtt, k, false)
		q = rs/s.r0 - 1
	}
	h := s.headroom()
	if q <= h+tol {
		// The drop share at the operating point, queue within the band
		// included: a heavy tail under a tight timeout drops more at the
		// knee than below it (in processor sharing every call slows as
		// the knee nears), and that share is the dependency's own, not
		// overload. Only an epoch cruise would not cut teaches it.
		s.f0 += 0.2 * (d/k - s.f0)
	}
	s.since++
	if (s.since >= littleProofEvery || !s.proven && s.since >= littleProofAfter) && !s.under {
		// Probe below: a no-load latency measured above the knee would
		// hide a queue for ever; a cut that holds goodput shows it. The
		// probe takes one call at least: callers see the integer part,
		// and a cut within it would measure the same limit twice. Under
		// littleProofMin calls one call is too large a share of the
		// limit to cut on a suspicion: the no-load latency stands. (Not
		// from an underload epoch: its goodput is the demand's, and the
		// probe's cut would take the limit under the demand's peaks.)
		s.since, s.step = 0, 0
		if fl := math.Floor(limit); fl >= littleProofMin {
			s.probing = true
			return s.move(cfg, limit, math.Min(limit*littleProofCut, fl-0.5), x, rtt, now)
		}
		s.proven = true
	}
	target := s.target(all, s.r0a)
	if q <= h+tol {
		s.suspect = false
	}
	if s.backTo > 0 {
		if !s.backFar(limit) {
			s.backTo = 0 // a call away: cruise's own step up, with its care at small limits
		} else if q < h/2 && s.steady && d/k <= s.f0+littleDropExcess {
			// Cut below the limit an overshoot went back to (the
			// overshoot's backlog: calls the dependency still ran after
			// their clients gave up overloaded the limits below it), and
			// now no queue: the backlog is gone, and that limit held
			// before the overshoot. Back to it at once, verified, rather
			// than by cruise's steps of an epoch each.
			next := s.backTo
			s.backTo, s.step, s.hold = 0, 0, 0
			return s.move(cfg, limit, next, x, rtt, now)
		}
	}
	if s.under && rej > littleShedShare*(k+rej) && q < h/2 && d/k <= s.f0+littleDropExcess {
		// Calls turned away while those in flight stayed well under the
		// limit on average (Little's law) with no queue: the demand
		// reached the limit at its peaks only, and the dependency kept
		// up. That is shedding in underload: grow, at once to where the
		// demand's peaks fit. Calls that arrive at random number n in
		// flight on average (Little's law), varying by about √n: n + 3√n
		// turns away about one in a thousand.
		s.step, s.hold = 0, 0
		peaks := n + littlePeakUnits*math.Sqrt(n) + 1
		return s.change(cfg, limit, math.Max(peaks, math.Max(limit*math.Exp(s.verifyStep), limit+1)), now, rtt)
	}
	switch {
	case q > h+tol:
		s.step = 0
		if s.chgDown && overFull {
			// More calls in flight than the limit allows, by Little's
			// law: the calls admitted before the last cut still complete,
			// with the queue of before. Their latency says nothing of
			// this limit; the next epoch judges it.
			return limit
		}
		if q <= h+2*tol && !s.suspect {
			// A queue the noise could still explain: cut if the next
			// epoch says so too.
			s.suspect = true
			s.hold++
			return limit
		}
		s.hold = 0
		s.suspect = false
		return s.cut(cfg, limit, x, all, rtt, now)
	case target > limit && !s.forcedAgain(limit, target) && (q < h/2 || s.step > 0 && rs <= s.streakRTT*(1+math.Max(h/2, tol))):
		// No queue to speak of: below the knee, or at it. Grow to the
		// target, faster while the latency stays where the streak of
		// growth began.
		s.hold = 0
		if s.step == 0 {
			s.streakRTT, s.streakL = rs, limit
		} else if limit > s.streakL && math.Log(rs/s.streakRTT) >= 0.5*math.Log(limit/s.streakL) {
			// The latency rose with the streak's growth by half or more:
			// above the knee it follows the limit. Grow no faster than
			// the target from here.
			s.step = 0
			return s.change(cfg, limit, math.Max(target, limit+1), now, rtt)
		}
		next := math.Max(target, limit*(1+s.step))
		s.step = math.Min(math.Max(2*s.step, littleStepFirst), 1)
		return s.change(cfg, limit, math.Max(next, limit+1), now, rtt)
	}
	// In the band around the headroom: hold, and now and then try a
	// verified step up, since a no-load latency measured a little low
	// would otherwise keep the limit below the knee for ever.
	s.step = 0
	s.hold++
	// At a small limit the step up is one call, a larger share than a
	// verified change needs (a third of the limit at 3), and so is the
	// queue it adds when the limit was at the knee: try it as much less
	// often as it is larger.
	if float64(s.hold) >= float64(s.upEvery)*math.Sqrt(math.Max(1, math.Log1p(1/math.Max(1, math.Floor(limit)))/littleMaxVerify)) && q <= h {
		// (Only from the lower half of the band: above the headroom the
		// latency already shows the queue a step up would add to.)
		s.hold = 0
		return s.move(cfg, limit, math.Max(limit*math.Exp(s.verifyStep), limit+1), x, rtt, now)
	}
	if target > limit {
		// Latency still says the limit could serve more: follow it up.
		if !s.trail.set {
			s.trail = littleRef{limit: limit, x: x, rtt: rtt, ok: rs, all: all, step: s.verifyStep, set: true, steady: s.steady, k: ks}
		}
		return s.change(cfg, limit, target, now, rtt)
	}
	return limit
}

// forcedAgain reports whether cruise's growth to target would be forced
// again from a limit it was undone to. Callers see the integer part, so
// cruise grows by one call at least; below about four calls Little's target
// (the limit times the headroom, rounded) stays within the same integer, and
// the growth of one call is a probe the target did not ask for. At the
// knee that probe overloads the dependency (a third call on two cores slows
// every call by half, and a tight timeout drops many of them), is cut
// back, and would be tried again soon after: a third of the time spent
// above the knee. Once it was undone from this limit, it is left to the
// band's verified steps up, whose cadence slows as they fail. (Not from one
// call: the step to two doubles goodput below the knee, a cut to one is
// mostly a noisy window of drops at two, and the band's cadence is slowest
// there.)
func (s *little) forcedAgain(limit, target float64) bool {
	fl := math.Floor(limit)
	return math.Floor(target) <= fl && fl == s.failL && fl > 1
}

// clearQueue reports whether the epoch pooled so far, though short of
// littleCruiseSamples, shows a queue by twice the margin cruise cuts at.
func (s *little) clearQueue(cfg *Config, limit float64) bool {
	if !s.r0ok || s.ek <= 0 || s.emax < math.Floor(limit) {
		return false
	}
	cv := math.Max(s.cv, littleCVFloor)
	if s.cvCount < 10 {
		cv = math.Max(cv, littleCVPrior)
	}
	tol := math.Max(littleMinTol, littleTolerance*cv/math.Sqrt(math.Max(1, s.ek-s.ed)))
	return s.eok/math.Max(1, s.ek-s.ed) > s.r0*(1+s.headroom()+2*tol)
}

// cut lowers the limit to the target of Little's law, by at least
// s.verifyStep so that the next epoch can verify it, and at most half.
func (s *little) cut(cfg *Config, limit, x, all, rtt float64, now int64) float64 {
	target := s.target(all, s.r0a)
	if q := s.lastOK/s.r0 - 1; s.r0ok && q > 0 && all > x*(1+littleCutDrops) {
		// Little's law counts the drops at r0a, the time a call held its
		// slot at no load. Epochs too young for any call to reach its
		// timeout teach an r0a without drops (a heavy tail's drops
		// appear a timeout after the start), and the target then falls
		// below the knee by their share of the slot time (a bimodal
		// dependency of C=555 cut from 517 to 335). The queue on the
		// latency of the calls that succeeded says how far above the
		// knee the limit is: cut by no more than that.
		target = math.Max(target, limit*(1+s.headroom())/(1+q))
	}
	if math.Floor(target) >= math.Floor(limit) {
		// The queue is within the integer part: nothing to cut.
		return s.change(cfg, limit, target, now, rtt)
	}
	next := target
	if math.Floor(target) > math.Floor(limit)*math.Exp(-s.verifyStep) {
		next = limit * math.Exp(-s.verifyStep)
	}
	return s.move(cfg, limit, math.Max(limit*littleMaxCut, next), x, rtt, now)
}

// move changes the limit from limit to next and keeps the epoch before the
// change as the reference for verifying it.
func (s *little) move(cfg *Config, limit, next, x, rtt float64, now int64) float64 {
	s.trail.set = false // a verified move has a reference of its own
	s.ref = littleRef{limit: limit, x: x, rtt: rtt, ok: s.lastOK, all: s.lastAll, step: s.verifyStep, set: true, steady: s.steady, k: s.lastK, under: s.under}
	return s.change(cfg, limit, next, now, rtt)
}

// change moves the limit to next, opening a new epoch and a dead time.
func (s *little) change(cfg *Config, limit, next float64, now int64, rtt float64) float64 {
	next = clampFloat(next, cfg)
	s.ek, s.ed, s.esum, s.edur, s.emax, s.eok, s.erej = 0, 0, 0, 0, 0, 0, 0
	switch {
	case math.Floor(next) > math.Floor(limit):
		s.preGrow = limit
	case next < limit:
		s.preGrow = 0
		s.trail.set = false // the steps up it followed are undone
	}
	if a, b := math.Floor(next), math.Floor(limit); a != b && math.Abs(math.Log(a/b)) >= littleDeadChange {
		s.chgAt, s.chgLag, s.chgN, s.chgDown = now, rtt, b, a < b
	}
	return next
}

// verify compares the epoch after a change with the one before it (ref)
// if the limit moved by at least s.verifyStep. Below the knee goodput
// follows the limit and latency stays; above it latency follows and
// goodput stays. The share e of the change that throughput followed tells
// which; the knee is at most the higher goodput times the latency at the
// lower limit (Little's law at the knee; exact when the knee lies between
// the two). It returns false when the phase's own rule decides.
func (s *little) verify(cfg *Config, ref littleRef, probing bool, limit, x, rtt, rs, k, tol float64, now int64) (float64, bool) {
	lnL := math.Log(limit / ref.limit)
	if math.Abs(lnL) < ref.step*0.99 || ref.x <= 0 || x <= 0 {
		return 0, false
	}
	e := followed(ref, lnL, x, rs)
	en := littleSigmaE * tol / math.Abs(lnL) // e's noise unit
	s.lastE, s.lastEN = e, en
	lo, hi := math.Min(limit, ref.limit), math.Max(limit, ref.limit)
	// By Little's law the calls in flight are all completions times
	// their latency, drops included: a call that times out holds its slot
	// until it does.
	rLo, sLo, aHi := rtt, rs, ref.all // sLo: the latency of calls that succeeded
	if lnL > 0 {
		rLo, sLo, aHi = ref.rtt, ref.ok, s.lastAll
		if s.phase != littleCruise && ref.all > 0 && rLo >= littleSlowShare*float64(cfg.Window) {
			// A slow dependency in slow start: an epoch soon after a
			// growth completes the short calls of the new slots first,
			// while the long ones of a heavy tail are still in flight, and
			// its mean latency is biased low. At a limit that bound,
			// Little's law gives the mean over the calls in flight too: the
			// limit over the completions a second (at most littleSlowBias
			// times the mean, since the calls in flight may have filled the
			// limit only at a peak). Both the no-load latency learnt and the
			// knee placed from it take that.
			r := math.Max(rLo, math.Min(math.Floor(ref.limit)/ref.all, littleSlowBias*rLo))
			sLo *= r / rLo
			rLo = r
		}
	} else if n := math.Floor(limit); s.lastAll > 0 && s.lastAll*rLo > n {
		// After a cut, an epoch whose completions times latency pass the
		// lower limit still completes calls admitted before the cut, with
		// the queue of before: Little's law bounds the latency the lower
		// limit itself gives by the limit over the completions a second.
		r := n / s.lastAll
		sLo *= r / rLo
		rLo = r
	}
	knee := math.Min(hi, math.Max(lo, s.target(aHi, rLo)))
	restore, restoreA := s.restore, s.restoreA
	s.restore, s.restoreA = 0, 0
	if lnL > 0 && restore > 0 {
		if e >= 0.5 && math.Log(x/ref.x) >= 0.5*lnL {
			// Goodput followed the way back up: a new normal. Goodput
			// itself must follow, not only the latency: the latency at
			// the lower limit may still carry a queue from before, and a
			// new normal taken from it would put the queue into r0.
			// It replaces r0 where e's noise unit is at most half the way
			// from "above the knee" (0) to "below it" (1). Where it is
			// more, the step back up was too small for its epochs to
			// tell (a heavy tail: σ 1.25 moves an epoch's goodput by a
			// fifth), and a dip of goodput at the lower limit passes for
			// a new normal: it is pooled with r0, weighing no more than
			// r0 does, so that a queue learnt by chance does not ratchet
			// r0 up by its whole height. (On 30 cores of a
			// processor-sharing dependency, r0 went from 147 to 195 and
			// 260 ms in two such tests, and the limit from 36 to 69.)
			noisy := en > littleNoisyE
			if noisy {
				s.r0w = math.Min(s.r0w, k)
			}
			s.learnR0(restore, restoreA, k, !noisy)
			s.proven = true
		}
		return 0, false
	}
	if lnL > 0 && (s.phase == littleCruise && ref.under || s.under && rs <= ref.ok*(1+tol)) {
		// The limit before the growth did not bind on average: its
		// goodput was the demand's, and could not follow the growth. Or
		// the demand did not fill the limit after it, and the latency
		// stayed: the dependency served what was asked, and Little's
		// law on that says where the demand is, not the knee.
		return 0, false
	}
	if lnL > 0 {
		switch {
		case e >= littleBelowKnee || s.phase != littleCruise && e >= math.Max(0.5, 1-2*en):
			if hi > s.ceil {
				s.ceil = 0
			}
			s.failL = 0 // the growth from there was answered
			// Growth answered: both below the knee (in slow start, a
			// growth that the noise cannot tell from answered goes on: one
			// more doubling costs less than stopping short).
			if ref.steady || !s.r0ok {
				s.learnR0(sLo, rLo, k, !s.r0ok)
			}
			if s.phase == littleCruise && s.steady {
				s.learnR0(rs, rtt, k, false) // the upper limit is below the knee too
				// Below the knee: go on growing, faster while latency holds.
				s.step, s.streakRTT, s.streakL, s.hold = littleStepFirst, rs, limit, 0
			} else {
				s.phase = littleSlow
			}
			s.proven = true
			s.upEvery = littleUpFirst
			return 0, false
		case !s.r0ok && e <= math.Max(littleAboveKnee, 2*en):
			// (With no no-load latency to fall back on, a growth that the
			// noise cannot tell from unanswered is taken as unanswered.)
			// Above the knee with no no-load latency yet: step down from
			// the lower limit, whose epoch stays the reference.
			s.phase = littleDescend
			s.ref = ref
			s.overX = math.Max(s.overX, x)
			return s.change(cfg, limit, lo*descent(k), now, rtt), true
		case e > littleAboveKnee && !s.r0ok:
			// The knee seems to lie between: a guess, to be proven.
			s.learnR0(sLo, rLo, k, true)
			s.guessL = lo
		case e > littleAboveKnee && s.phase != littleCruise && math.Floor(s.target(aHi, math.Max(rLo, s.r0a))) >= math.Floor(hi):
			// Slow start, a growth the noise cannot tell, and Little's
			// law on the no-load latency puts the knee at the upper limit
			// or above it: the growth goes on.
			s.phase = littleSlow
			s.upEvery = littleUpFirst
			return 0, false
		case e <= littleAboveKnee:
			// Growth went past the knee. In cruise, back to the lower
			// limit: it was shown to serve as much, while Little's law on
			// the no-load latency learnt from few samples may put the knee
			// a call or more below it. After a doubling, back to what
			// Little's law says the dependency serves, at most the lower
			// limit.
			s.upEvery = min(2*s.upEvery, littleUpMax)
			knee = lo
			if s.phase != littleCruise {
				knee = math.Min(lo, math.Max(lo*littleMaxCut, s.target(s.lastAll, s.r0a)))
			}
			if n := math.Floor(hi) - math.Floor(lo); n > 1 && n <= 3 {
				// A doubling of a small limit skips a call or two that
				// may be the knee: Little's law tells, without headroom.
				knee = math.Max(lo, math.Min(littleTarget(s.lastAll, s.r0a), math.Floor(hi)-0.5))
			}
		}
		s.phase = littleCruise
		return s.change(cfg, limit, knee, now, rtt), true
	}
	fits := s.r0ok && sLo <= s.r0*(1+s.headroom()+tol)
	// The share of the cut that goodput alone followed: where the latency
	// at the lower limit still carries the queue of before (a slow
	// dependency's dead time), e says the cut was followed when goodput
	// did not move.
	eX := math.Log(x/ref.x) / lnL
	// In the descent, goodput that fell with the cut by more than the
	// noise says the lower limit is below the knee however little it
	// fell (above the knee goodput does not depend on the limit): the
	// knee lies between, at the goodput above times the latency below.
	fell := s.phase == littleDescend && !probing && eX*lnL < -tol
	if s.phase == littleDescend && !probing && !fell && e <= littleAboveKnee && e > 1-2*en {
		// A step of the descent that the noise cannot tell from one
		// goodput followed (few samples: a slow dependency): stepping on
		// down on a guess costs seconds under the knee. Stop here, with
		// the latency here for a no-load latency to be proven: cruise's
		// probe cuts below it soon and finds a queue if there is one.
		s.learnR0(sLo, rLo, k, true)
		s.proven, s.step, s.phase = false, 0, littleCruise
		s.guessL = limit
		return limit, true
	}
	if !fell && e <= littleAboveKnee || !fits && math.Min(e, eX) < littleRestoreShare && s.phase == littleCruise {
		// The cut held goodput: there was a queue, and the no-load latency
		// is at most the latency now. Only a latency below the one known
		// by more than the noise says so: folding in every epoch that
		// happens to be faster would ratchet it down on noise alone.
		faster := s.r0ok && rs < s.r0*(1-math.Min(tol, 0.5))
		if faster && s.phase == littleCruise && !probing {
			s.learnR0(rs, rtt, k, false)
		}
		// A probe that found the latency at the lower limit where the
		// no-load latency says it is proves it (below), unless the
		// no-load latency is a guess taken at about this
		// limit after a cut for overload, and the latency fell in
		// proportion to the cut: then the guess was taken above the knee
		// and carries its queue, which finding it again here cannot
		// disprove. Above the knee latency is calls in flight over the
		// capacity; below it, it stays. A guess made on the way up from
		// below is left alone: a heavy tail under a tight timeout shows
		// such a fall below its knee too.
		guessAbove := !s.proven && s.ceil > 0 && s.guessL > 0 && lo >= s.guessL*math.Exp(-s.verifyStep) &&
			math.Abs(math.Log(sLo/ref.ok)/lnL-1) <= 1-littleFollowed
		if probing && sLo <= s.r0*(1+tol) && !faster && !guessAbove {
			// A probe that found the latency at the lower limit where the
			// no-load latency says it is: the queue was above and the
			// no-load latency is right. The knee lies between. The lower
			// limit's latency is then a no-load latency measured afresh:
			// where it is lower, it is folded in (an r0 learnt high from a
			// first short epoch would otherwise set every target above the
			// knee by as much; a higher one may still carry some queue).
			if s.steady && sLo < s.r0 {
				s.learnR0(sLo, rLo, k, false)
			}
			s.proven = true
			s.step = 0
			return s.change(cfg, limit, knee, now, rtt), true
		}
		if probing || s.phase == littleDescend {
			// A probe that found a queue: the no-load latency was
			// measured above the knee. Look for the knee below.
			s.phase, s.r0ok, s.proven = littleDescend, false, false
		}
		return 0, false
	}
	if !fits && s.phase == littleCruise {
		// Goodput followed the cut but the latency stayed above the
		// no-load one: either the dependency got slower (a new normal) or
		// its capacity fell while the cut was measured. Going back up
		// tells: goodput follows a new normal up again, not a capacity
		// that fell.
		s.restore, s.restoreA = sLo, rLo
		s.ref = littleRef{limit: limit, x: x, rtt: rtt, ok: rs, all: s.lastAll, step: ref.step, set: true, steady: s.steady}
		return s.change(cfg, limit, hi, now, rtt), true
	}
	// A cut went below the knee, or the knee lies between: the latency at
	// the lower limit is the no-load latency. In cruise it may only lower
	// the one known unless the cut clearly went below the knee: a latency
	// in the band would otherwise creep it up.
	if !s.r0ok || s.phase != littleCruise && s.steady {
		s.learnR0(sLo, rLo, k, true)
	} else if s.steady && (e >= littleBelowKnee || sLo <= s.r0*(1+tol)) {
		s.learnR0(sLo, rLo, k, false)
	}
	if e >= littleBelowKnee && s.steady && ref.steady && ref.k > 0 && ref.ok <= sLo {
		// Goodput followed the cut: the upper limit was below the knee
		// too, and its latency is as much a no-load latency. One epoch
		// of few samples errs by its noise, and the knee with it. (Only
		// an upper latency no higher than the lower one: a cut from 5
		// to 1 call with a knee at 4 has goodput follow 86% of it, and
		// a queue only raises latency.)
		s.learnR0(ref.ok, ref.rtt, ref.k, false)
	}
	if e >= littleBelowKnee || e >= 0.5 && (s.proven || probing) || fell && e <= littleAboveKnee {
		s.proven = true
	}
	s.step = 0
	if s.phase == littleDescend && !probing {
		overX := s.overX
		s.overX, s.descX = 0, 0
		if e >= littleBelowKnee && ref.steady && ref.ok <= sLo*(1+tol) && (ref.x > overX*(1+tol) || overX > ref.x*(1+tol)) {
			// Goodput followed a step of the descent in full, and the
			// latency at the upper limit was the one here within its
			// noise: the upper limit was below the knee as well. Only a
			// limit above that served as much (within the noise) puts the
			// knee near the upper limit. One that served less was
			// overloaded by more than the limit (a backlog of calls the
			// dependency still worked on after their clients gave up) and
			// says nothing of where the knee is; one that served more says
			// the knee is above (the first window at a limit far above C,
			// before the backlog grew, serves at capacity). Back up, and
			// grow from there as at the start.
			s.phase = littleSlow
			return s.move(cfg, limit, hi, x, rtt, now), true
		}
	}
	s.phase = littleCruise
	return s.change(cfg, limit, knee, now, rtt), true
}

// climbed reports whether the peak of calls in flight rose from before to
// now by more than wandering explains: littleClimb calls and
// littleClimbShare of before.
func climbed(before, now float64) bool {
	return now > before+math.Max(littleClimb, littleClimbShare*before)
}

// followed returns e, the share of a change of the limit by lnL (log) from
// the epoch ref that went into throughput, given the goodput x and the
// latency rs after it: 1 below the knee, where goodput follows the limit
// and latency stays, 0 above it, where latency follows and goodput stays.
// Goodput and latency each say it with partly independent noise: e
// averages the two.
func followed(ref littleRef, lnL, x, rs float64) float64 {
	return (math.Log(x/ref.x) + lnL - math.Log(rs/ref.ok)) / (2 * lnL)
}

// dropExcess is how far a window of k samples that dropped a share f must
// pass the usual drop share to be overload: littleDropExcess, or
// littleDropNoise binomial noise units of the share when more (a window
// of 40 calls that each drop with a chance of 0.3 varies by 0.07 from
// window to window).
func (s *little) dropExcess(f, k float64) float64 {
	return math.Max(littleDropExcess, s.dropNoise(f, k))
}

// dropNoise is littleDropNoise binomial noise units of the drop share of k
// calls, each dropping with the usual share or the share f seen (at most
// half), whichever is more.
func (s *little) dropNoise(f, k float64) float64 {
	p := math.Max(s.f0, math.Min(f, 0.5))
	return littleDropNoise * math.Sqrt(p*(1-p)/k)
}

// littleTarget is the limit that serves x calls a nanosecond at a no-load
// latency of r0 with the headroom, by Little's law, rounded to the nearest
// integer (callers see the integer part): a knee of 1.8 is 2, not 1.
func littleTarget(x, r0 float64) float64 {
	return x*r0*(1+littleHeadroom) + 0.5
}

// target is littleTarget with the headroom of the epochs' noise: a knee
// estimated from few samples errs by a noise unit or so, and below the
// knee the error costs goodput while above it it costs a call or two of
// queue, so the estimate is made to err above.
func (s *little) target(x, r0 float64) float64 {
	return x*r0*(1+s.headroom()) + 0.5
}

// headroom returns the share above the knee that cruise aims at.
func (s *little) headroom() float64 {
	if s.head < littleHeadroom {
		return littleHeadroom
	}
	return s.head
}

// descent returns the share a step down cuts the limit to, after an epoch
// of k samples: a quarter when samples are plenty, a half when they are
// few, so that the lower limit still gathers an epoch soon.
func descent(k float64) float64 {
	if k >= 4*littleDescentSamples {
		return littleDescent
	}
	return 0.5
}

// learnR0 folds an epoch's latency, taken at or below the knee, into the
// no-load latency: an average weighted by samples over at most
// littleR0Samples of them, so that one noisy epoch does not set it; fresh
// starts it over.
func (s *little) learnR0(rs, rtt, k float64, fresh bool) {
	if fresh || s.r0w == 0 {
		s.r0, s.r0a, s.r0w = rs, rtt, k
		s.guessL = 0 // a guess sets it again after this
	} else {
		s.r0 = (s.r0*s.r0w + rs*k) / (s.r0w + k)
		s.r0a = (s.r0a*s.r0w + rtt*k) / (s.r0w + k)
		s.r0w = math.Min(s.r0w+k, littleR0Samples)
	}
	s.r0ok = true
}

// noise learns cv from two consecutive epochs and returns the noise unit
// of an epoch's latency, cv/sqrt(k). Two averages of n1 and n2 samples
// differ by cv*sqrt(1/n1+1/n2) (standard deviation); each observation
// divides the difference by that square root and scales it by √π/2, so
// its mean is cv/√2, not cv (the mean absolute value of a normal draw is
// σ√(2/π)). Every threshold in noise units was set on this scale: 2.5
// units of tolerance are about 1.8 standard deviations of an epoch's mean
// latency. Rescaling the observation alone, to give cv itself, widens
// every tolerance by √2 and is worse on the matrix (643 failed checks on
// 24 seeds against 623).
func (s *little) noise(rtt, k, limit float64) float64 {
	if s.prevSet && s.prevRTT > 0 && rtt > 0 {
		// Between the two epochs the limit may have moved: below the knee
		// latency does not follow it, above it latency follows it. What
		// neither explains is noise.
		d, dL := math.Log(rtt/s.prevRTT), math.Log(math.Max(1, math.Floor(limit))/math.Max(1, math.Floor(s.prev)))
		obs := math.Min(math.Abs(d), math.Abs(d-dL)) / math.Sqrt(1/k+1/s.prevK) * math.Sqrt(math.Pi) / 2
		if s.cvCount < 10 {
			// Clipped from the first: a queue that grows while the limit
			// does not bind moves the latency by far more than noise, and
			// an estimate of the noise taken from it would widen every
			// tolerance after it.
			s.cvCount++
			s.cv += (math.Min(obs, littleCVClip*littleCVPrior) - s.cv) / float64(s.cvCount)
		} else {
			s.cv += littleCVWeight * (math.Min(obs, littleCVClip*s.cv) - s.cv)
		}
	}
	s.prevSet, s.prevRTT, s.prevK, s.prev = true, rtt, k, limit
	// Until ten observations, the prior counts as three of them.
	cv := s.cv
	if s.cvCount < 10 {
		cv = (s.cv*float64(s.cvCount) + littleCVPrior*3) / float64(s.cvCount+3)
	}
	return math.Max(cv, littleCVFloor) / math.Sqrt(k)
}
