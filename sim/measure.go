package sim

import (
	"math"
	"slices"
	"time"
)

// SettleBand is how close to the capacity the limit must come: within 25%.
const SettleBand = 0.25

// SettleHold is how long the limit must then stay in the band for an entry
// to hold (or until the end of the phase, if it is nearer).
const SettleHold = 5 * time.Second

// CollapseSpan and CollapseBelow define a collapse: a CollapseSpan stretch
// after the warm-up whose goodput is under CollapseBelow.
const (
	CollapseSpan  = 10 * time.Second
	CollapseBelow = 0.8
)

// Settle is how long the limit took to come within SettleBand of C after
// the start or a change (a phase with Settle set).
type Settle struct {
	// At is the offset of the start or the change.
	At time.Duration
	// First is the time to the first sample in the band; Hold the time to
	// the first entry after which the limit stays in the band for
	// SettleHold (or to the end of the phase). -1 if never, within the
	// phase.
	First, Hold time.Duration
}

// Figures are the measures of a run over its steady part: every phase
// without its Skip, and without the run's first Warmup.
type Figures struct {
	// Goodput is the calls answered in time divided by what could have been
	// served: per second, min(calls offered, capacity) × the share of calls
	// whose service alone fits in the timeout, summed over the steady part.
	// The capacity is C/(Base·scale) (for PS, the knee's throughput
	// k/(Base·scale)). Under overload, 1 means every worker busy on calls
	// that could be answered in time; it can pass 1 a little (random
	// service times, work carried from one second into the next).
	Goodput float64
	// Rejected is the share of offered calls the limiter rejected.
	Rejected float64
	// TimedOut is the share of admitted calls whose client timed out.
	TimedOut float64
	// P50 and P99 are the admitted calls' latencies (until the answer, or
	// the timeout for a call that timed out) in multiples of Base × the
	// service-time scale at admission.
	P50, P99 float64
	// LimitMean is the mean of limit/C(t) over the samples.
	LimitMean float64
	// InBand is the share of samples with the limit within SettleBand of C(t).
	InBand float64
	// Settle has one entry per settle point: the start, if the first phase
	// has Settle set, and each later phase with Settle set.
	Settle []Settle
	// Worst10s is the lowest goodput over any CollapseSpan stretch (in whole
	// seconds) from the end of the warm-up to the end of the run, and
	// Collapse whether it is under CollapseBelow.
	Worst10s float64
	Collapse bool
	// Good and Servable are, second by second over the whole run, the calls
	// answered in time and what could have been served.
	Good, Servable []float64
}

// span is a steady stretch, in whole seconds.
type span struct{ from, to int }

func steadySpans(sc *Scenario) []span {
	var out []span
	var start time.Duration
	for _, p := range sc.Phases {
		sp := span{int(max(start+p.Skip, Warmup) / time.Second), int((start + p.Duration) / time.Second)}
		if sp.from < sp.to {
			out = append(out, sp)
		}
		start += p.Duration
	}
	return out
}

// perSecond sums a trace's buckets by second: answered in time, and what
// could have been served.
func perSecond(tr *Trace) (good, servable []float64) {
	per := int(time.Second / SampleEvery)
	secs := len(tr.Buckets) / per
	good, servable = make([]float64, secs), make([]float64, secs)
	for s := range secs {
		var arr, capacity, fit float64
		for _, b := range tr.Buckets[s*per : (s+1)*per] {
			good[s] += float64(b.Good)
			arr += float64(b.Arrivals)
			capacity += float64(b.Capacity) * SampleEvery.Seconds()
			fit += float64(b.Fit) / float64(per)
		}
		servable[s] = math.Min(arr, capacity) * fit
	}
	return good, servable
}

// Measure computes the figures of tr.
func Measure(tr *Trace) Figures {
	sc := tr.Scenario
	spans := steadySpans(sc)
	inSpan := func(t time.Duration) bool {
		s := int(t / time.Second)
		for _, sp := range spans {
			if s >= sp.from && s < sp.to {
				return true
			}
		}
		return false
	}
	var f Figures
	good, servable := perSecond(tr)
	f.Good, f.Servable = good, servable
	var g, sv float64
	for _, sp := range spans {
		for s := sp.from; s < sp.to; s++ {
			g += good[s]
			sv += servable[s]
		}
	}
	f.Goodput = ratio(g, sv)

	per := int(time.Second / SampleEvery)
	var arrivals, rejected float64
	for i, b := range tr.Buckets {
		if inSpan(time.Duration(i/per) * time.Second) {
			arrivals += float64(b.Arrivals)
			rejected += float64(b.Rejected)
		}
	}
	f.Rejected = ratio(rejected, arrivals)

	var lats []float64
	var timedOut float64
	for _, c := range tr.Calls {
		if inSpan(c.Admitted) {
			lats = append(lats, float64(c.Units))
			if !c.OK {
				timedOut++
			}
		}
	}
	slices.Sort(lats)
	f.P50, f.P99 = percentile(lats, 0.50), percentile(lats, 0.99)
	f.TimedOut = ratio(timedOut, float64(len(lats)))

	var lim, band, n float64
	for _, s := range tr.Samples {
		if inSpan(s.At) {
			lim += float64(s.Limit) / float64(s.Capacity)
			if inBand(s) {
				band++
			}
			n++
		}
	}
	f.LimitMean, f.InBand = ratio(lim, n), ratio(band, n)

	var start time.Duration
	for _, p := range sc.Phases {
		if p.Settle {
			f.Settle = append(f.Settle, settle(tr.Samples, start, start+p.Duration))
		}
		start += p.Duration
	}

	f.Worst10s = math.Inf(1)
	w := int(CollapseSpan / time.Second)
	for s := int(Warmup / time.Second); s+w <= len(good); s++ {
		var g, sv float64
		for i := s; i < s+w; i++ {
			g += good[i]
			sv += servable[i]
		}
		if sv > 0 {
			f.Worst10s = math.Min(f.Worst10s, g/sv)
		}
	}
	if math.IsInf(f.Worst10s, 1) {
		f.Worst10s = math.NaN()
	}
	f.Collapse = f.Worst10s < CollapseBelow
	return f
}

func inBand(s Sample) bool {
	c := float64(s.Capacity)
	return math.Abs(float64(s.Limit)-c) <= SettleBand*c
}

// settle measures the samples in [from, to).
func settle(samples []Sample, from, to time.Duration) Settle {
	st := Settle{At: from, First: -1, Hold: -1}
	entered := time.Duration(-1)
	for _, s := range samples {
		if s.At < from || s.At >= to {
			continue
		}
		if !inBand(s) {
			entered = -1
			continue
		}
		if st.First < 0 {
			st.First = s.At - from
		}
		if entered < 0 {
			entered = s.At
		}
		if s.At-entered >= SettleHold || s.At+SampleEvery >= to {
			st.Hold = entered - from
			break
		}
	}
	return st
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// percentile returns the p-quantile (0..1) of sorted xs, nearest rank.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
