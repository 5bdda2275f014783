package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// Sample is one point of a run's time series, taken every SampleEvery at
// the middle of the period (so that no sample shares an instant with a
// phase change).
type Sample struct {
	At       time.Duration // offset from the start of the run
	Limit    int           // the limiter's limit
	InFlight int           // calls admitted whose client still waits
	Busy     int           // calls the dependency works on (FIFO workers busy, PS calls running)
	Queued   int           // calls waiting for a FIFO worker
	Capacity int           // the true capacity C(t)
}

// Record is one admitted call.
type Record struct {
	Admitted time.Duration // offset of its admission
	Latency  time.Duration // until the answer, or the client timeout
	Units    float32       // Latency in multiples of Base × the scale at admission
	OK       bool          // answered in time
}

// Bucket counts one SampleEvery of a run.
type Bucket struct {
	Arrivals, Rejected int32 // calls offered to the limiter, and rejected by it
	Good               int32 // calls answered in time, by the instant of the answer
	// Capacity is the most calls per second the dependency completes (C/(Base·scale)),
	// and Fit the share of calls whose service alone fits in the timeout,
	// at the middle of the bucket.
	Capacity, Fit float32
}

// Trace is everything a run produced.
type Trace struct {
	Scenario *Scenario
	Limiter  string
	Seed     uint64
	Samples  []Sample
	Calls    []Record
	Buckets  []Bucket
	// Events is the number of events the run processed.
	Events int
}

// epoch is the wall-clock instant the virtual clock starts from.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// vclock is a run's virtual clock. adaptivelimit.Limiter only reads Now and
// Nanotime; a run has one goroutine, so nothing could wait on a timer.
type vclock struct{ now int64 }

func (c *vclock) Now() time.Time  { return epoch.Add(time.Duration(c.now)) }
func (c *vclock) Nanotime() int64 { return c.now }

func (c *vclock) NewTimer(time.Duration) policy.Timer {
	panic("sim: the virtual clock has no timers (a limiter with MaxWait cannot run in the simulator)")
}

func (c *vclock) WithDeadline(context.Context, time.Time) (context.Context, context.CancelFunc) {
	panic("sim: the virtual clock has no deadlines")
}

type callState uint8

const (
	waiting  callState = iota // the client waits
	answered                  // answered in time
	timedOut                  // the client gave up
)

// call is one admitted call.
type call struct {
	admitted, deadline int64
	work               float64 // service factor (mean 1)
	scale              float64 // service-time scale at admission, for Units
	tok                Token
	client             int // closed-loop client, -1 open loop
	state              callState

	// The dependency's side.
	started bool    // FIFO: a worker took it
	gone    bool    // FIFO: dropped from the queue
	finish  float64 // PS: the virtual work at which it is done
}

type eventKind uint8

const (
	evDone    eventKind = iota // the dependency finished work (FIFO: c; PS: generation n)
	evArrival                  // the next open-loop arrival
	evClient                   // closed-loop client n calls
	evPhase                    // phase n starts
	evTick                     // sample, and apply continuous changes
)

type event struct {
	at   int64
	seq  uint64
	kind eventKind
	n    int
	c    *call
}

func (e *event) before(o *event) bool { return e.at < o.at || (e.at == o.at && e.seq < o.seq) }

// dependency is a model of the dependency: it calls run.served when it has
// done a call's work.
type dependency interface {
	submit(c *call)
	abandon(c *call) // the client gave up on c, now
	done(e event)
	set(capacity int, scale float64)
	state() (busy, queued int)
}

// run is one simulation: one goroutine, an event heap and, since every call
// has the same timeout, a FIFO of timeouts in admission order.
type run struct {
	sc      *Scenario
	lim     Limiter
	clk     vclock
	bubble  bool // advance a synctest bubble's clock with time.Sleep
	heap    []event
	seq     uint64
	tq      []*call
	tqHead  int
	dep     dependency
	rng     *rand.Rand   // open-loop arrivals and their work
	clients []*rand.Rand // one stream per closed-loop client
	end     int64
	timeout int64

	rate     float64 // open-loop arrivals per second in this phase
	phaseEnd int64
	capacity int
	scale    float64
	inflight int
	tr       *Trace
}

func (r *run) push(at int64, kind eventKind, n int, c *call) {
	r.seq++
	r.heap = append(r.heap, event{at: at, seq: r.seq, kind: kind, n: n, c: c})
	h := r.heap
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (r *run) pop() event {
	h := r.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = event{}
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if rr := l + 1; rr < len(h) && h[rr].before(&h[l]) {
			m = rr
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	r.heap = h
	return top
}

// Run simulates sc against a limiter made by spec with seed and returns the
// trace; the same seed gives the same trace. A Peer spec runs inside a
// testing/synctest bubble started from t (t is used for nothing else).
func Run(t *testing.T, sc *Scenario, spec Spec, seed uint64) (*Trace, error) {
	if !spec.Peer {
		return simulate(sc, spec, seed, false)
	}
	var tr *Trace
	var err error
	synctest.Test(t, func(*testing.T) { tr, err = simulate(sc, spec, seed, true) })
	return tr, err
}

func simulate(sc *Scenario, spec Spec, seed uint64, bubble bool) (*Trace, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	total := sc.Duration()
	r := &run{sc: sc, bubble: bubble, end: int64(total), timeout: int64(sc.Timeout),
		rng: rand.New(rand.NewPCG(seed, 0x5eed))}
	r.tr = &Trace{Scenario: sc, Limiter: spec.Name, Seed: seed,
		Buckets: make([]Bucket, int(total/SampleEvery))}
	r.capacity, r.scale = sc.conditions(0)
	lim, err := spec.New(Env{Clock: &r.clk, Scenario: sc, Capacity: func() int { return r.capacity }})
	if err != nil {
		return nil, fmt.Errorf("sim: %s on %s: %w", spec.Name, sc.Key(), err)
	}
	r.lim = lim
	switch sc.Model {
	case PS:
		r.dep = &ps{r: r, k: r.capacity, scale: r.scale}
	default:
		r.dep = &fifo{r: r, workers: r.capacity, scale: r.scale, keep: sc.Abandon == KeepAll}
	}

	var start int64
	for i, p := range sc.Phases {
		r.push(start, evPhase, i, nil)
		start += int64(p.Duration)
	}
	r.push(int64(SampleEvery/2), evTick, 0, nil)
	if sc.Clients > 0 {
		r.clients = make([]*rand.Rand, sc.Clients)
		for i := range r.clients {
			r.clients[i] = rand.New(rand.NewPCG(seed, 1<<32|uint64(i)))
			r.push(int64(r.clients[i].Float64()*float64(sc.Base)), evClient, i, nil)
		}
	}
	r.loop()
	return r.tr, nil
}

func (r *run) advance(t int64) {
	if r.bubble && t > r.clk.now {
		time.Sleep(time.Duration(t - r.clk.now))
	}
	r.clk.now = t
}

func (r *run) loop() {
	for {
		for r.tqHead < len(r.tq) && r.tq[r.tqHead].state != waiting {
			r.tq[r.tqHead] = nil
			r.tqHead++
		}
		if r.tqHead > 4096 && r.tqHead > len(r.tq)/2 {
			n := copy(r.tq, r.tq[r.tqHead:])
			clear(r.tq[n:])
			r.tq, r.tqHead = r.tq[:n], 0
		}
		hasT, hasE := r.tqHead < len(r.tq), len(r.heap) > 0
		switch {
		case hasE && (!hasT || r.heap[0].at <= r.tq[r.tqHead].deadline):
			// At the same instant an answer comes before the timeout.
			e := r.pop()
			r.advance(e.at)
			r.handle(e)
		case hasT:
			c := r.tq[r.tqHead]
			r.tq[r.tqHead] = nil
			r.tqHead++
			r.advance(c.deadline)
			r.expire(c)
		default:
			return
		}
		r.tr.Events++
		if r.clk.now >= r.end && r.inflight == 0 {
			return
		}
	}
}

func (r *run) handle(e event) {
	switch e.kind {
	case evDone:
		r.dep.done(e)
	case evArrival:
		r.offer(r.sc.Service.draw(r.rng), -1)
		r.nextArrival()
	case evClient:
		r.attempt(e.n)
	case evPhase:
		p := r.sc.Phases[e.n]
		r.phaseEnd = r.clk.now + int64(p.Duration)
		r.apply()
		if r.sc.Clients == 0 {
			r.rate = r.sc.rate(p)
			r.nextArrival()
		}
	case evTick:
		r.apply()
		b := int(r.clk.now / int64(SampleEvery))
		r.tr.Buckets[b].Capacity = float32(r.sc.capacityRate(r.capacity, r.scale))
		r.tr.Buckets[b].Fit = float32(r.sc.fit(r.scale))
		busy, queued := r.dep.state()
		r.tr.Samples = append(r.tr.Samples, Sample{At: time.Duration(r.clk.now), Limit: r.lim.Limit(),
			InFlight: r.inflight, Busy: busy, Queued: queued, Capacity: r.capacity})
		if next := r.clk.now + int64(SampleEvery); next < r.end {
			r.push(next, evTick, 0, nil)
		}
	}
}

// apply sets the dependency to the scenario's conditions now.
func (r *run) apply() {
	c, s := r.sc.conditions(time.Duration(r.clk.now))
	if c != r.capacity || s != r.scale {
		r.capacity, r.scale = c, s
		r.dep.set(c, s)
	}
}

// nextArrival schedules the next open-loop arrival of the phase, if it
// falls within it (Poisson arrivals are memoryless: the next phase draws
// afresh from its start).
func (r *run) nextArrival() {
	gap := time.Duration(r.rng.ExpFloat64() / r.rate * float64(time.Second))
	if at := r.clk.now + int64(gap); at < r.phaseEnd {
		r.push(at, evArrival, 0, nil)
	}
}

// attempt makes closed-loop client i call, unless the run is over.
func (r *run) attempt(i int) {
	if r.clk.now >= r.end {
		return
	}
	r.offer(r.sc.Service.draw(r.clients[i]), i)
}

// offer gives a call of service factor work to the limiter.
func (r *run) offer(work float64, client int) {
	b := &r.tr.Buckets[r.clk.now/int64(SampleEvery)]
	b.Arrivals++
	tok, ok := r.lim.TryAcquire()
	if !ok {
		b.Rejected++
		if client >= 0 {
			think := time.Duration(r.clients[client].ExpFloat64() * float64(r.sc.Think))
			r.push(r.clk.now+int64(think), evClient, client, nil)
		}
		return
	}
	c := &call{admitted: r.clk.now, deadline: r.clk.now + r.timeout, work: work, scale: r.scale, tok: tok, client: client}
	r.inflight++
	r.tq = append(r.tq, c)
	r.dep.submit(c)
}

// served is called by the dependency when it has done c's work.
func (r *run) served(c *call) {
	if c.state != waiting {
		return // wasted work: the client is gone
	}
	c.state = answered
	r.outcome(c, true)
}

// expire is c's client timeout.
func (r *run) expire(c *call) {
	c.state = timedOut
	r.dep.abandon(c)
	r.outcome(c, false)
}

func (r *run) outcome(c *call, ok bool) {
	lat := r.clk.now - c.admitted
	r.tr.Calls = append(r.tr.Calls, Record{Admitted: time.Duration(c.admitted), Latency: time.Duration(lat),
		Units: float32(float64(lat) / (float64(r.sc.Base) * c.scale)), OK: ok})
	r.inflight--
	o := Dropped
	if ok {
		o = Success
		if b := r.clk.now / int64(SampleEvery); b < int64(len(r.tr.Buckets)) {
			r.tr.Buckets[b].Good++
		}
	}
	r.lim.Release(c.tok, o)
	if c.client >= 0 {
		r.attempt(c.client)
	}
}

// ---- FIFO: workers in front of one queue.

type fifo struct {
	r       *run
	workers int
	busy    int
	scale   float64
	queue   []*call
	head    int
	dead    int // calls dropped from the queue, still in the slice
	keep    bool
}

func (f *fifo) submit(c *call) {
	if f.busy < f.workers {
		f.busy++
		f.start(c)
		return
	}
	f.queue = append(f.queue, c)
}

func (f *fifo) start(c *call) {
	c.started = true
	service := time.Duration(float64(f.r.sc.Base) * f.scale * c.work)
	f.r.push(f.r.clk.now+int64(service), evDone, 0, c)
}

func (f *fifo) dispatch() {
	for f.busy < f.workers && f.head < len(f.queue) {
		c := f.queue[f.head]
		f.queue[f.head] = nil
		f.head++
		if c.gone {
			f.dead--
			continue
		}
		f.busy++
		f.start(c)
	}
	if f.head == len(f.queue) {
		f.queue, f.head = f.queue[:0], 0
	} else if f.head > 4096 && f.head > len(f.queue)/2 {
		n := copy(f.queue, f.queue[f.head:])
		clear(f.queue[n:])
		f.queue, f.head = f.queue[:n], 0
	}
}

func (f *fifo) done(e event) {
	f.busy--
	f.dispatch()
	f.r.served(e.c)
}

func (f *fifo) abandon(c *call) {
	if !f.keep && !c.started {
		c.gone = true
		f.dead++
	}
}

func (f *fifo) set(capacity int, scale float64) {
	f.workers, f.scale = capacity, scale
	f.dispatch()
}

func (f *fifo) state() (busy, queued int) { return f.busy, len(f.queue) - f.head - f.dead }

// ---- PS: processor sharing with a virtual-work clock. Every running call
// progresses at the same rate, so the order in which they finish is the
// order of their finishing virtual work: a heap keyed by it, and one
// pending completion event, rescheduled (by generation) when the rate
// changes.

type ps struct {
	r        *run
	k        int
	scale    float64
	v        float64 // work done by each running call since the start, in ns of base work
	last     int64
	h        []*call
	gen      int
	finished []*call
}

// rate is the work a running call gets done per ns with n running.
func (p *ps) rate(n int) float64 {
	if n <= p.k {
		return 1 / p.scale
	}
	return float64(p.k) / (float64(n) * (1 + p.r.sc.Contention*float64(n-p.k))) / p.scale
}

func (p *ps) progress() {
	now := p.r.clk.now
	if n := len(p.h); n > 0 {
		p.v += p.rate(n) * float64(now-p.last)
	}
	p.last = now
}

func (p *ps) reschedule() {
	p.gen++
	if len(p.h) == 0 {
		return
	}
	dt := math.Ceil((p.h[0].finish - p.v) / p.rate(len(p.h)))
	p.r.push(p.r.clk.now+max(0, int64(dt)), evDone, p.gen, nil)
}

func (p *ps) submit(c *call) {
	p.progress()
	c.finish = p.v + float64(p.r.sc.Base)*c.work
	p.heapPush(c)
	p.reschedule()
}

// psEpsilon is the work (in ns) under which a call counts as done, against
// floating-point rounding.
const psEpsilon = 1e-3

func (p *ps) done(e event) {
	if e.n != p.gen {
		return // the rate changed since this completion was scheduled
	}
	p.progress()
	fin := p.finished[:0]
	for len(p.h) > 0 && p.h[0].finish <= p.v+psEpsilon {
		fin = append(fin, p.heapPop())
	}
	p.reschedule()
	for i, c := range fin {
		fin[i] = nil
		p.r.served(c)
	}
	p.finished = fin[:0]
}

// abandon does nothing: every PS call is being served, and runs to its end.
func (p *ps) abandon(*call) {}

func (p *ps) set(capacity int, scale float64) {
	p.progress()
	p.k, p.scale = capacity, scale
	p.reschedule()
}

func (p *ps) state() (busy, queued int) { return len(p.h), 0 }

func (p *ps) heapPush(c *call) {
	p.h = append(p.h, c)
	h := p.h
	i := len(h) - 1
	for i > 0 {
		q := (i - 1) / 2
		if h[q].finish <= h[i].finish {
			break
		}
		h[i], h[q] = h[q], h[i]
		i = q
	}
}

func (p *ps) heapPop() *call {
	h := p.h
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = nil
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if rr := l + 1; rr < len(h) && h[rr].finish < h[l].finish {
			m = rr
		}
		if h[i].finish <= h[m].finish {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	p.h = h
	return top
}
