package main

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// outcome is how a request ended, as its caller saw it.
type outcome int

const (
	answered outcome = iota // answered in time
	rejected                // rejected at once by r4c: the server never saw it
	timedOut                // no answer before the timeout
	failed                  // anything else (a broken connection, Ctrl-C)
	outcomes                // the number of outcomes
)

func classify(err error) outcome {
	switch {
	case err == nil:
		return answered
	case errors.Is(err, policy.ErrRejected): // any r4c rejection: the server was not called
		return rejected
	case errors.Is(err, context.DeadlineExceeded): // r4c's CallTimeoutError matches it too
		return timedOut
	}
	return failed
}

// tally counts outcomes and keeps the latencies of the answered requests.
type tally struct {
	count     [outcomes]int
	latencies []time.Duration // of the answered requests
}

func (t *tally) add(o outcome, latency time.Duration) {
	t.count[o]++
	if o == answered {
		t.latencies = append(t.latencies, latency)
	}
}

// requests returns how many requests ended.
func (t *tally) requests() int {
	n := 0
	for _, c := range t.count {
		n += c
	}
	return n
}

// percentile returns the latency that a fraction p of the answered requests
// did not exceed (nearest rank); ok is false when none was answered. It
// sorts the latencies in place.
func (t *tally) percentile(p float64) (latency time.Duration, ok bool) {
	if len(t.latencies) == 0 {
		return 0, false
	}
	slices.Sort(t.latencies)
	i := int(math.Ceil(p*float64(len(t.latencies)))) - 1
	return t.latencies[max(i, 0)], true
}

// recorder collects the outcomes of one run: in all, per phase (by the time
// each request started) and per tick of the progress lines (by the time it
// ended). It is safe for concurrent use.
type recorder struct {
	start  time.Time
	tick   time.Duration
	phases []phase

	mu       sync.Mutex
	total    tally
	perPhase []tally
	perTick  []tally // grows with time
}

func newRecorder(start time.Time, tick time.Duration, phases []phase) *recorder {
	return &recorder{start: start, tick: tick, phases: phases, perPhase: make([]tally, len(phases))}
}

// record adds the outcome of a request that started at began and ended now
// with err.
func (r *recorder) record(began time.Time, err error) {
	end := time.Now()
	o, latency := classify(err), end.Sub(began)

	r.mu.Lock()
	defer r.mu.Unlock()
	r.total.add(o, latency)
	r.perPhase[phaseAt(r.phases, began.Sub(r.start))].add(o, latency)
	i := int(end.Sub(r.start) / r.tick)
	for len(r.perTick) <= i {
		r.perTick = append(r.perTick, tally{})
	}
	r.perTick[i].add(o, latency)
}

// ofTick returns a copy of what ended during tick i (from i*tick to
// (i+1)*tick after the start).
func (r *recorder) ofTick(i int) tally {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i >= len(r.perTick) {
		return tally{}
	}
	t := r.perTick[i]
	t.latencies = slices.Clone(t.latencies)
	return t
}

// tallies returns what was recorded in all and per phase. Call it once
// every request has ended.
func (r *recorder) tallies() (total tally, perPhase []tally) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total, r.perPhase
}
