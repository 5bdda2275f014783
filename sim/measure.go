package sim

import (
	"math"
	"slices"
	"time"
)

// SettleBand is how close to the capacity the limit must come: within 25%.
const SettleBand = 0.25

// SettleHold is how long the limit must then stay in the band for the
// arrival to count, so that a limit swinging through the band does not.
const SettleHold = 5 * time.Second

// Figures are the measures of a run (or of one phase of it) over its steady
// part (each phase without its Skip).
type Figures struct {
	// Goodput is the calls answered in time divided by the most that could
	// have been: min(offered rate, workers / service time) over the time
	// measured. Under overload it is the fraction of the capacity used.
	Goodput float64
	// Rejected is the fraction of arrivals the limiter rejected.
	Rejected float64
	// P50 and P99 are the admitted calls' latencies (until the answer or
	// the client timeout) as multiples of the mean service time.
	P50, P99 float64
	// TimedOut is the fraction of admitted calls that timed out.
	TimedOut float64
	// LimitMean is the limit's mean divided by the number of workers.
	LimitMean float64
	// Settle is, per phase with Settle set, how long the limit took to
	// come within SettleBand of the workers and stay there for SettleHold
	// (or to the end of the phase); -1 if it never did.
	Settle []time.Duration
}

type span struct {
	from, to time.Duration
	phase    Phase
}

// steadySpans lists the steady part of each phase (or of phase only, if
// phase >= 0).
func steadySpans(sc Scenario, phase int) []span {
	var out []span
	var start time.Duration
	for i, p := range sc.Phases {
		if phase < 0 || phase == i {
			out = append(out, span{start + p.Skip, start + p.Duration, p})
		}
		start += p.Duration
	}
	return out
}

// Measure computes the figures of tr over every phase's steady part.
func Measure(tr *Trace) Figures { return measure(tr, -1) }

// MeasurePhase computes the figures of tr over phase i's steady part.
func MeasurePhase(tr *Trace, i int) Figures { return measure(tr, i) }

func measure(tr *Trace, phase int) Figures {
	spans := steadySpans(tr.Scenario, phase)
	in := func(t time.Duration) (Phase, bool) {
		for _, s := range spans {
			if t >= s.from && t < s.to {
				return s.phase, true
			}
		}
		return Phase{}, false
	}
	var f Figures
	var ideal float64
	for _, s := range spans {
		offered := s.phase.Load * Capacity / BaseService.Seconds()
		capacity := float64(s.phase.Workers) / (BaseService.Seconds() * s.phase.Scale)
		ideal += math.Min(offered, capacity) * (s.to - s.from).Seconds()
	}
	var good, admitted, timedOut int
	var lats []float64
	for _, c := range tr.Calls {
		if c.OK {
			if _, ok := in(c.Admitted + c.Latency); ok {
				good++
			}
		}
		if _, ok := in(c.Admitted); ok {
			admitted++
			if !c.OK {
				timedOut++
			}
			lats = append(lats, c.Latency.Seconds()/(BaseService.Seconds()*c.Scale))
		}
	}
	slices.Sort(lats)
	f.Goodput = float64(good) / ideal
	f.P50, f.P99 = percentile(lats, 0.50), percentile(lats, 0.99)
	if admitted > 0 {
		f.TimedOut = float64(timedOut) / float64(admitted)
	}
	var arrivals, rejected int
	for b := range tr.Arrivals {
		if _, ok := in(time.Duration(b) * SampleEvery); ok {
			arrivals += tr.Arrivals[b]
			rejected += tr.Rejections[b]
		}
	}
	if arrivals > 0 {
		f.Rejected = float64(rejected) / float64(arrivals)
	}
	var sum float64
	var n int
	for _, s := range tr.Samples {
		if p, ok := in(s.At); ok {
			sum += float64(s.Limit) / float64(p.Workers)
			n++
		}
	}
	f.LimitMean = sum / float64(n)

	var start time.Duration
	for i, p := range tr.Scenario.Phases {
		if p.Settle && (phase < 0 || phase == i) {
			f.Settle = append(f.Settle, settle(tr.Samples, start, start+p.Duration, p.Workers))
		}
		start += p.Duration
	}
	return f
}

// settle returns how long after from the limit entered the band around
// workers to stay there for SettleHold (or until to), or -1.
func settle(samples []Sample, from, to time.Duration, workers int) time.Duration {
	lo, hi := float64(workers)*(1-SettleBand), float64(workers)*(1+SettleBand)
	entered := time.Duration(-1)
	for _, s := range samples {
		if s.At < from || s.At >= to {
			continue
		}
		inBand := float64(s.Limit) >= lo && float64(s.Limit) <= hi
		switch {
		case inBand && entered < 0:
			entered = s.At
		case !inBand:
			entered = -1
		}
		if entered >= 0 && (s.At-entered >= SettleHold || s.At+SampleEvery >= to) {
			return entered - from
		}
	}
	return -1
}
