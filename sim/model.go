package sim

import (
	"math"
	"sync"
	"time"
)

// Model constants shared by every scenario.
const (
	// Capacity is the number of workers of the dependency at the start of
	// every scenario: at most Capacity calls are served at once, the rest
	// wait in FIFO order.
	Capacity = 40
	// BaseService is the mean service time of a call at the start of every
	// scenario. Latencies are reported as multiples of it (of the scaled
	// service time during a latency shift).
	BaseService = 100 * time.Millisecond
	// ServiceSigma is the σ of the log-normal service-time noise. With a mean
	// of one, its 99th percentile is exp(2.326σ - σ²/2) = 2.82, the p99 of a
	// limit fixed at the capacity (no queueing at all).
	ServiceSigma = 0.5
	// ClientTimeout is how long a client waits for its call. A call that
	// times out is a drop for the limiters (Netflix's sense) and frees its
	// slot at the timeout; if it was still queued the dependency forgets
	// it, if it was being served the worker finishes the wasted work.
	ClientTimeout = 10 * BaseService
	// SampleEvery is the period of the time series (limit, in flight, ...).
	SampleEvery = 100 * time.Millisecond
)

// serviceNoise turns a standard normal draw into a log-normal factor of mean 1.
func serviceNoise(z float64) float64 {
	return math.Exp(ServiceSigma*z - ServiceSigma*ServiceSigma/2)
}

// call is one admitted call, from the limiter's admission to the client's
// outcome. Fields after mu-protected comments are guarded by dependency.mu.
type call struct {
	noise    float64   // service-time factor, drawn at arrival
	admitted time.Time // when the limiter admitted it
	scale    float64   // service-time scale at admission (for latency units)
	permit   Permit
	timer    *time.Timer // the client timeout

	// guarded by dependency.mu
	started   bool // a worker took it
	cancelled bool // the client timed out while it was queued
	finished  bool // the client has its outcome (success or timeout)
}

// dependency is C workers in front of a FIFO queue. It runs no goroutine of
// its own: a started call schedules its completion with time.AfterFunc, so
// inside a synctest bubble everything moves in virtual time.
type dependency struct {
	mu      sync.Mutex
	workers int
	busy    int
	scale   float64 // service-time multiplier
	queue   []*call
	head    int
	dead    int                                  // cancelled calls still in the queue
	done    func(c *call, ok bool, at time.Time) // the client's outcome
}

func (d *dependency) submit(c *call) {
	d.mu.Lock()
	if d.busy < d.workers {
		d.busy++
		d.startLocked(c)
	} else {
		d.queue = append(d.queue, c)
	}
	d.mu.Unlock()
}

// startLocked starts serving c. d.mu is held.
func (d *dependency) startLocked(c *call) {
	c.started = true
	service := time.Duration(float64(BaseService) * d.scale * c.noise)
	time.AfterFunc(service, func() { d.complete(c) })
}

// dispatchLocked starts queued calls while workers are free. d.mu is held.
func (d *dependency) dispatchLocked() {
	for d.busy < d.workers && d.head < len(d.queue) {
		c := d.queue[d.head]
		d.queue[d.head] = nil
		d.head++
		if c.cancelled {
			d.dead--
			continue
		}
		d.busy++
		d.startLocked(c)
	}
	if d.head == len(d.queue) {
		d.queue, d.head = d.queue[:0], 0
	}
}

func (d *dependency) complete(c *call) {
	now := time.Now()
	d.mu.Lock()
	d.busy--
	d.dispatchLocked()
	first := !c.finished
	c.finished = true
	d.mu.Unlock()
	if first {
		c.timer.Stop()
		d.done(c, true, now)
	}
}

func (d *dependency) timeout(c *call) {
	now := time.Now()
	d.mu.Lock()
	if c.finished {
		d.mu.Unlock()
		return
	}
	c.finished = true
	if !c.started {
		c.cancelled = true
		d.dead++
	}
	d.mu.Unlock()
	d.done(c, false, now)
}

func (d *dependency) set(workers int, scale float64) {
	d.mu.Lock()
	d.workers, d.scale = workers, scale
	d.dispatchLocked()
	d.mu.Unlock()
}

func (d *dependency) state() (busy, queued int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.busy, len(d.queue) - d.head - d.dead
}
