package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// SampleEvery is the period of a run's time series (limit, calls in flight,
// capacity) and the width of its counting buckets.
const SampleEvery = 100 * time.Millisecond

// Model is how the dependency serves the calls it is given.
type Model uint8

const (
	// FIFO is C(t) workers in front of one first-come-first-served queue: a
	// call is served by a free worker, alone, in its service time, or waits.
	FIFO Model = iota
	// PS is processor sharing, like a CPU-bound database: k(t) cores shared
	// by every running call, each progressing at rate min(1, k/n) with n
	// calls running (k/(n(1+α(n-k))) past the knee with a contention factor
	// α), so every call slows down as concurrency passes the cores. There is
	// no queue. Its capacity C is k.
	PS
)

// String returns "fifo" or "ps".
func (m Model) String() string {
	if m == PS {
		return "ps"
	}
	return "fifo"
}

// Abandon is what the dependency does with a call whose client gave up.
type Abandon uint8

const (
	// FinishRunning drops a queued call from the queue; a call being served
	// runs to its end (wasted work), holding its worker (FIFO) or its share
	// of the cores (PS, where every call is being served).
	FinishRunning Abandon = iota
	// KeepAll serves every call, even a queued one whose client is gone:
	// nothing is ever cancelled.
	KeepAll
)

// Service is the distribution of a call's service work, as a factor of mean
// 1 applied to the scenario's Base.
type Service struct {
	// Sigma is the σ of a log-normal factor of mean 1: exp(σz - σ²/2).
	Sigma float64
	// Bimodal, when set, replaces the log-normal: 90% of calls are fast and
	// 10% are ten times slower, each mode log-normal with σ BimodalSigma
	// around its own mean; the fast mean is Base/1.9 so that Base stays the
	// mean (0.9·1 + 0.1·10 = 1.9).
	Bimodal bool
}

// BimodalSigma is the σ of each mode of a bimodal service (Service.Bimodal).
const BimodalSigma = 0.25

// bimodal mixture: a share bimodalSlow of calls is bimodalRatio times slower.
const (
	bimodalSlow  = 0.1
	bimodalRatio = 10.0
	bimodalMean  = 1 - bimodalSlow + bimodalSlow*bimodalRatio // 1.9
)

// draw returns a service factor of mean 1.
func (s Service) draw(rng *rand.Rand) float64 {
	if s.Bimodal {
		m := 1 / bimodalMean
		if rng.Float64() < bimodalSlow {
			m *= bimodalRatio
		}
		return m * math.Exp(BimodalSigma*rng.NormFloat64()-BimodalSigma*BimodalSigma/2)
	}
	return math.Exp(s.Sigma*rng.NormFloat64() - s.Sigma*s.Sigma/2)
}

// cdf returns the probability that a service factor is at most x.
func (s Service) cdf(x float64) float64 {
	if x <= 0 {
		return 0
	}
	ln := func(sigma, mean float64) float64 {
		if sigma == 0 {
			if x >= mean {
				return 1
			}
			return 0
		}
		z := (math.Log(x/mean) + sigma*sigma/2) / sigma
		return 0.5 * math.Erfc(-z/math.Sqrt2)
	}
	if s.Bimodal {
		m := 1 / bimodalMean
		return (1-bimodalSlow)*ln(BimodalSigma, m) + bimodalSlow*ln(BimodalSigma, m*bimodalRatio)
	}
	return ln(s.Sigma, 1)
}

// quantile returns the p-quantile of the service factor (bisection on cdf).
func (s Service) quantile(p float64) float64 {
	lo, hi := 0.0, 1.0
	for s.cdf(hi) < p {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if s.cdf(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// String describes the distribution: "σ 0.5" or "bimodal".
func (s Service) String() string {
	if s.Bimodal {
		return "bimodal"
	}
	return fmt.Sprintf("σ %g", s.Sigma)
}

// Wave makes a phase's capacity oscillate: it starts at the phase's
// Capacity, falls to Low after half a Period and is back after a Period,
// C(t) = Low + (Capacity-Low)(1+cos 2πt/Period)/2, rounded.
type Wave struct {
	Low    int
	Period time.Duration
}

// Phase is a stretch of a scenario. Its conditions hold from its start,
// except that a Wave and a ScaleTo move them continuously (applied every
// SampleEvery).
type Phase struct {
	// Duration is how long the phase lasts, a whole number of seconds.
	Duration time.Duration
	// Load is the offered open-loop load as a multiple of the scenario's
	// initial capacity (the first phase's Capacity / Base): Poisson
	// arrivals at Load·C₀/Base calls per second. Ignored with Clients.
	Load float64
	// Rate, when positive, is the arrival rate in calls per second instead
	// of Load.
	Rate float64
	// Capacity is the dependency's capacity C: FIFO workers or PS cores.
	Capacity int
	// Wave, when its Period is set, makes the capacity oscillate.
	Wave Wave
	// Scale multiplies every service time (1: Base). ScaleTo, when
	// positive, moves it linearly to ScaleTo over the phase.
	Scale, ScaleTo float64
	// Skip is the start of the phase left out of the steady-state figures
	// (the time a limiter is given to adapt to a change), a whole number of
	// seconds. The first Warmup of a run is always left out.
	Skip time.Duration
	// Settle asks for the time the limit takes to come within SettleBand
	// of C after the phase starts.
	Settle bool
}

// Limits are the adaptive limiter's settings a scenario sets, as a user
// sizing that dependency would: any zero field keeps the limiter's own
// default. r4c limiters get all four; peers get InitialLimit and MaxLimit.
type Limits struct {
	InitialLimit, MaxLimit, MinWindowSamples int
	Window                                   time.Duration
}

// Scenario is a dependency, a load and a sequence of phases.
type Scenario struct {
	// Family and Name identify the scenario: Key is "family/name".
	Family, Name string
	// Title is one line for the report.
	Title string
	// Model, Contention and Abandon describe the dependency: Contention
	// is PS's α (0: throughput stays k/Base past the knee).
	Model      Model
	Contention float64
	Abandon    Abandon
	// Base is the mean service time at Scale 1; Service its distribution.
	Base    time.Duration
	Service Service
	// Timeout is how long a client waits for its call.
	Timeout time.Duration
	// Clients, when positive, makes the load closed-loop: Clients clients,
	// each calling again as soon as its call ends (answered or timed out),
	// or after an exponential think time of mean Think when rejected.
	Clients int
	Think   time.Duration
	// Limits are passed to the adaptive limiters.
	Limits Limits
	// Phases run back to back from t = 0.
	Phases []Phase
	// Underload marks a scenario whose load stays under the capacity: a
	// good limiter sheds nothing there, and no settle time is asked.
	Underload bool
}

// Warmup is the start of every run left out of the steady-state figures.
const Warmup = 10 * time.Second

// Key returns "family/name".
func (s *Scenario) Key() string { return s.Family + "/" + s.Name }

// Duration is the total length of s.
func (s *Scenario) Duration() time.Duration {
	var d time.Duration
	for _, p := range s.Phases {
		d += p.Duration
	}
	return d
}

// C0 is the capacity at the start.
func (s *Scenario) C0() int { return s.Phases[0].Capacity }

// Varies reports whether the capacity changes during s, in which case its
// reference is the oracle rather than the bulkhead fixed at C0.
func (s *Scenario) Varies() bool {
	for _, p := range s.Phases {
		if p.Capacity != s.C0() || p.Wave.Period > 0 {
			return true
		}
	}
	return false
}

// Validate reports the first thing that makes s unrunnable, or nil.
func (s *Scenario) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("sim: scenario %s: %s", s.Key(), fmt.Sprintf(format, a...))
	}
	switch {
	case len(s.Phases) == 0:
		return bad("no phases")
	case s.Base <= 0:
		return bad("base %v must be positive", s.Base)
	case s.Timeout <= 0:
		return bad("timeout %v must be positive", s.Timeout)
	case s.Service.Sigma < 0 || math.IsNaN(s.Service.Sigma):
		return bad("service σ %v must not be negative", s.Service.Sigma)
	case s.Contention < 0 || (s.Contention > 0 && s.Model != PS):
		return bad("contention %v needs the PS model and must not be negative", s.Contention)
	case s.Clients < 0 || (s.Clients > 0 && s.Think <= 0):
		return bad("closed loop needs clients > 0 and a positive think time")
	case s.Abandon > KeepAll:
		return bad("unknown abandon mode %d", s.Abandon)
	}
	for i, p := range s.Phases {
		switch {
		case p.Duration <= 0 || p.Duration%time.Second != 0:
			return bad("phase %d: duration %v must be a positive whole number of seconds", i, p.Duration)
		case p.Skip < 0 || p.Skip >= p.Duration || p.Skip%time.Second != 0:
			return bad("phase %d: skip %v must be a whole number of seconds within the phase", i, p.Skip)
		case p.Capacity < 1:
			return bad("phase %d: capacity %d must be at least 1", i, p.Capacity)
		case p.Scale <= 0 || p.ScaleTo < 0:
			return bad("phase %d: scale %v must be positive", i, p.Scale)
		case s.Clients == 0 && p.Load <= 0 && p.Rate <= 0:
			return bad("phase %d: open loop needs a load or a rate", i)
		case p.Wave.Period < 0 || (p.Wave.Period > 0 && (p.Wave.Low < 1 || p.Wave.Low > p.Capacity)):
			return bad("phase %d: wave low %d must be in [1, %d]", i, p.Wave.Low, p.Capacity)
		}
	}
	return nil
}

// phaseAt returns the index of the phase at offset t and its start.
func (s *Scenario) phaseAt(t time.Duration) (int, time.Duration) {
	var start time.Duration
	for i, p := range s.Phases {
		if t < start+p.Duration {
			return i, start
		}
		start += p.Duration
	}
	last := len(s.Phases) - 1
	return last, start - s.Phases[last].Duration
}

// conditions returns the capacity and the service-time scale at offset t.
func (s *Scenario) conditions(t time.Duration) (capacity int, scale float64) {
	i, start := s.phaseAt(t)
	p := s.Phases[i]
	off := float64(t-start) / float64(p.Duration)
	capacity, scale = p.Capacity, p.Scale
	if p.Wave.Period > 0 {
		x := (1 + math.Cos(2*math.Pi*float64(t-start)/float64(p.Wave.Period))) / 2
		capacity = int(math.Round(float64(p.Wave.Low) + float64(p.Capacity-p.Wave.Low)*x))
	}
	if p.ScaleTo > 0 {
		scale = p.Scale + (p.ScaleTo-p.Scale)*off
	}
	return capacity, scale
}

// rate returns the open-loop arrival rate of phase p, in calls per second.
func (s *Scenario) rate(p Phase) float64 {
	if p.Rate > 0 {
		return p.Rate
	}
	return p.Load * float64(s.C0()) / s.Base.Seconds()
}

// capacityRate is the most calls per second the dependency completes with
// capacity c at scale: c/(Base·scale) for both models (PS at its knee).
func (s *Scenario) capacityRate(c int, scale float64) float64 {
	return float64(c) / (s.Base.Seconds() * scale)
}

// fit is the probability that a call's service alone fits in the client's
// timeout at scale: a call that does not can never be answered in time.
func (s *Scenario) fit(scale float64) float64 {
	return s.Service.cdf(float64(s.Timeout) / (float64(s.Base) * scale))
}
