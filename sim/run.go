package sim

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// Sample is one point of a run's time series, taken every SampleEvery.
type Sample struct {
	At       time.Duration // offset from the start of the run
	Limit    int           // the limiter's limit
	InFlight int           // calls admitted and not yet answered
	Busy     int           // workers serving a call
	Queued   int           // calls waiting for a worker
}

// Record is one admitted call.
type Record struct {
	Admitted time.Duration // offset of its admission
	Latency  time.Duration // until the answer, or the timeout
	OK       bool          // answered in time
	Scale    float64       // service-time scale at admission
}

// Trace is everything a run produced.
type Trace struct {
	Scenario Scenario
	Limiter  string
	Seed     uint64
	Samples  []Sample
	Calls    []Record
	// Arrivals and Rejections count per SampleEvery bucket.
	Arrivals, Rejections []int
}

// Run simulates sc against a limiter made by spec, inside a synctest
// bubble started from t, and returns the trace. The same seed gives the
// same trace.
func Run(t *testing.T, sc Scenario, spec Spec, seed uint64) *Trace {
	t.Helper()
	var tr *Trace
	synctest.Test(t, func(t *testing.T) {
		tr = simulate(sc, spec, seed)
	})
	return tr
}

// simulate runs inside a bubble.
func simulate(sc Scenario, spec Spec, seed uint64) *Trace {
	total := sc.Duration()
	buckets := int(total/SampleEvery) + 1
	tr := &Trace{Scenario: sc, Limiter: spec.Name, Seed: seed,
		Arrivals: make([]int, buckets), Rejections: make([]int, buckets)}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	lim := spec.New()
	start := time.Now()
	var mu sync.Mutex // guards tr.Calls and inflight
	inflight := 0

	p0 := sc.Phases[0]
	dep := &dependency{workers: p0.Workers, scale: p0.Scale}
	dep.done = func(c *call, ok bool, at time.Time) {
		o := Success
		if !ok {
			o = Dropped
		}
		mu.Lock()
		inflight--
		tr.Calls = append(tr.Calls, Record{Admitted: c.admitted.Sub(start), Latency: at.Sub(c.admitted), OK: ok, Scale: c.scale})
		mu.Unlock()
		c.permit.Release(o)
	}

	// The sampler ticks half a period off the phase boundaries, so that no
	// sample shares an instant with a phase change.
	var wg sync.WaitGroup
	wg.Go(func() {
		for at := SampleEvery / 2; at < total; at += SampleEvery {
			time.Sleep(at - time.Since(start))
			busy, queued := dep.state()
			mu.Lock()
			n := inflight
			mu.Unlock()
			tr.Samples = append(tr.Samples, Sample{At: at, Limit: lim.Limit(), InFlight: n, Busy: busy, Queued: queued})
		}
	})

	// The generator is the only user of rng, so the draws do not depend on
	// the order in which goroutines run.
	var phaseEnd time.Duration
	now := time.Duration(0)
	for i, p := range sc.Phases {
		if i > 0 {
			time.Sleep(phaseEnd - time.Since(start))
			dep.set(p.Workers, p.Scale)
		}
		phaseEnd += p.Duration
		rate := p.Load * Capacity / BaseService.Seconds() // calls per second
		now = time.Since(start)
		for {
			gap := time.Duration(rng.ExpFloat64() / rate * float64(time.Second))
			if now+gap >= phaseEnd {
				break
			}
			now += gap
			z := rng.NormFloat64()
			time.Sleep(now - time.Since(start))
			b := int(now / SampleEvery)
			tr.Arrivals[b]++
			permit, ok := lim.TryAcquire()
			if !ok {
				tr.Rejections[b]++
				continue
			}
			c := &call{noise: serviceNoise(z), admitted: start.Add(now), scale: p.Scale, permit: permit}
			mu.Lock()
			inflight++
			mu.Unlock()
			c.timer = time.AfterFunc(ClientTimeout, func() { dep.timeout(c) })
			dep.submit(c)
		}
	}
	time.Sleep(total - time.Since(start))
	wg.Wait()
	// Let every call in flight end (timeouts bound them) before leaving
	// the bubble.
	time.Sleep(2 * ClientTimeout)
	synctest.Wait()
	return tr
}

// percentile returns the p-quantile (0..1) of sorted xs, nearest rank.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
