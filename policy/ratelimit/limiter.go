package ratelimit

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

// Limiter lets at most Limit calls per Period through, with bursts of up to
// Burst calls after a quiet spell. It is the core of the policy, usable on
// its own ([Limiter.Allow], [Limiter.AllowAt], [Limiter.Wait]) or in a
// chain through [Stage].
//
// The limiter keeps one number, the theoretical arrival time of the next
// permit (the generic cell rate algorithm, GCRA, a token bucket kept as a
// time), and computes permits from clock readings: nothing refills in the
// background, and on a clocktest.ManualClock every decision is exact. A
// permit is taken with one CAS; the limiter never takes a lock.
//
// With a Config.Store the state lives in the store instead, shared by
// every process, and each decision is a store call (see the package doc,
// "Limits shared by every replica"); what the methods below say of cost
// and blocking is then bounded by Config.StoreTimeout instead.
//
// A Limiter is safe for concurrent use. Make one with [New]; the zero value
// is not usable.
type Limiter struct {
	rejectEvent events.Event // the CallRejected event, boxed once
	// st is the current era: the rate's settings and the theoretical
	// arrival time measured at that rate. A setter starts a new era (see
	// Limiter.update); a permit is taken within one era.
	st atomic.Pointer[era]

	disabled bool
	clock    policy.Clock
	bus      *events.Bus
	instance string
	err      *RateLimitedError

	mu  sync.Mutex // serialises setters; guards cfg
	cfg Config     // as built or last set, defaults filled in; for the handle

	rejections atomic.Uint64

	remote *remote // nil without a Store (store.go, remote.go)
}

// era is the limiter's settings from one change to the next, with its own
// theoretical arrival time. Only tat changes during an era.
type era struct {
	// tat is the theoretical arrival time: the clock reading at which the
	// bucket would be empty again if nobody took another permit. A permit
	// may be taken at now when max(tat, now) - now <= tolerance, and taking
	// it moves tat to max(tat, now) + interval. A setter ends the era by
	// swapping tat to closed; takers that see closed load the next era.
	tat       atomic.Int64
	interval  int64 // Period / Limit in nanoseconds, at least 1
	tolerance int64 // (Burst - 1) * interval

	limit, burst int
	period       time.Duration
	maxWait      time.Duration
}

// closed is the tat of an era that a setter has ended.
const closed = math.MinInt64

func newEra(cfg *Config) *era {
	interval := int64(cfg.Period) / int64(cfg.Limit)
	return &era{
		interval:  interval,
		tolerance: int64(cfg.Burst-1) * interval,
		limit:     cfg.Limit,
		burst:     cfg.Burst,
		period:    cfg.Period,
		maxWait:   cfg.MaxWait,
	}
}

// load returns the current era and its tat, which is not closed.
func (l *Limiter) load() (*era, int64) {
	for {
		e := l.st.Load()
		if tat := e.tat.Load(); tat != closed {
			return e, tat
		}
		// A setter is between closing this era and opening the next: a
		// few instructions.
		runtime.Gosched()
	}
}

// New returns the limiter that cfg describes, reading and waiting on env's
// clock, publishing on env.Events and naming env.Instance in its errors. The
// bucket starts full: Burst permits are free at once. cfg is defaulted with
// [Config.WithDefaults] and checked with [Config.Validate], whose
// [*policy.FieldError] New returns as it is. New never panics.
func New(cfg Config, env policy.Env) (*Limiter, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l := &Limiter{
		cfg:      cfg,
		disabled: cfg.Disabled,
		clock:    env.ClockOrSystem(),
		bus:      env.Events,
		instance: env.Instance,
	}
	l.err = &RateLimitedError{l: l, instance: env.Instance}
	l.err.setMessage(cfg.Limit, cfg.Period)
	// Boxed once, so that publishing a rejection allocates nothing.
	l.rejectEvent = events.CallRejected{Policy: "ratelimit", Instance: env.Instance, Err: l.err}
	e := newEra(&cfg)
	e.tat.Store(l.clock.Nanotime())
	l.st.Store(e)
	if cfg.Store != nil {
		l.remote = newRemote(l, cfg, e.interval, e.tat.Load())
	}
	return l, nil
}

// Allow takes a permit if one is free now and reports whether it did. It
// never blocks, reads the clock once and allocates nothing. A false counts
// as a rejection (see [Snapshot].Rejections) and publishes an
// events.CallRejected. A disabled limiter always returns true.
func (l *Limiter) Allow() bool {
	ok, _ := l.AllowAt(l.clock.Nanotime())
	return ok
}

// AllowAt is [Limiter.Allow] at now, a reading of the limiter's clock
// ([policy.Clock.Nanotime]) that the caller took. It also returns, when it
// refuses, how long after now a permit will be free if nobody takes one
// first. A reading older than one another caller used counts as that later
// time: permits never come before their time.
func (l *Limiter) AllowAt(now int64) (ok bool, retryAfter time.Duration) {
	if l.disabled {
		return true, 0
	}
	if l.remote != nil {
		return l.remote.allow(now)
	}
	d, _, ok := l.take(now, 0)
	if !ok {
		l.reject(context.Background())
		return false, time.Duration(d)
	}
	return true, 0
}

// Wait takes a permit, waiting for it on the limiter's clock up to MaxWait.
// It returns nil once it holds the permit.
//
// If the permit would come later than MaxWait from now (with the default
// MaxWait of 0: if none is free now), or later than ctx's deadline, Wait
// returns the limiter's [*RateLimitedError] at once without waiting in
// vain and takes nothing. If ctx is done while it waits, Wait gives the
// permit back and returns ctx.Err() unchanged: the caller's cancellation is
// never reported as "rate limited". A free permit is taken at once without
// looking at ctx. Wait allocates only when it has to wait (a timer).
func (l *Limiter) Wait(ctx context.Context) error {
	if l.disabled {
		return nil
	}
	_, err := l.wait(ctx, l.clock.Nanotime())
	return err
}

// Available returns how many permits could be taken now, from 0 to Burst.
// It reads the clock once.
func (l *Limiter) Available() int { return l.AvailableAt(l.clock.Nanotime()) }

// AvailableAt returns how many permits could be taken at now, a reading of
// the limiter's clock.
func (l *Limiter) AvailableAt(now int64) int {
	if l.remote != nil {
		return l.remote.available(now)
	}
	e, tat := l.load()
	if tat <= now {
		return e.burst
	}
	room := now + e.tolerance - tat // how far tat may still advance
	if room < 0 {
		return 0
	}
	return int(room/e.interval) + 1
}

// RetryAfter returns how long from now until a permit is free, if nobody
// takes one first: 0 if one is free now. It reads the clock once.
func (l *Limiter) RetryAfter() time.Duration { return l.RetryAfterAt(l.clock.Nanotime()) }

// RetryAfterAt is [Limiter.RetryAfter] at now, a reading of the limiter's
// clock.
func (l *Limiter) RetryAfterAt(now int64) time.Duration {
	if l.remote != nil {
		return l.remote.retryAfter(now)
	}
	e, tat := l.load()
	if d := tat - now - e.tolerance; d > 0 {
		return time.Duration(d)
	}
	return 0
}

// take takes the next permit if it comes within maxWait of now, and returns
// how long after now it comes (0 if it is free at once) and how it moved
// the era's tat (for giveBack). If it comes later, take takes nothing and
// returns false with the wait it would have needed. The arithmetic
// saturates: a reservation that would end after the largest reading ends
// there, and the limiter stays shut from then on, rather than wrapping
// around and letting every call through.
func (l *Limiter) take(now, maxWait int64) (wait int64, r reservation, ok bool) {
	for {
		e := l.st.Load()
		tat := e.tat.Load()
		if tat == closed {
			runtime.Gosched() // a setter is opening the next era
			continue
		}
		t := max(tat, now)
		wait = t - now - e.tolerance
		if wait > maxWait {
			return wait, reservation{}, false
		}
		end := t + e.interval
		if end < t { // overflow
			end = math.MaxInt64
		}
		if e.tat.CompareAndSwap(tat, end) {
			return max(wait, 0), reservation{era: e, from: t, to: end}, true
		}
	}
}

// reservation is how a permit moved an era's tat: from from to to.
type reservation struct {
	era      *era
	from, to int64
}

// giveBack returns the permit of reservation r, taken by a wait that was
// cancelled. The permit goes back only while it is still the last one
// reserved (its era is current and its tat is still r.to): tat moves back
// to where it was before, as if the wait had never been. If a later call
// has reserved a permit since, that call's time was computed after ours and
// cannot move, so the cancelled permit is lost: moving tat back by one
// interval then would hand the next call the time of the last reservation,
// and two calls would pass at once. Likewise if a setter opened a new era
// since. The limiter never exceeds its rate; a cancellation may cost a
// permit.
func (l *Limiter) giveBack(r reservation) {
	r.era.tat.CompareAndSwap(r.to, r.from)
}

// wait takes a permit at now as [Limiter.Wait] describes, and reports
// whether it had to wait.
func (l *Limiter) wait(ctx context.Context, now int64) (waited bool, err error) {
	if l.remote != nil {
		return l.remote.take(ctx, now, l.remote.maxWaitFor(ctx))
	}
	if _, _, ok := l.take(now, 0); ok {
		return false, nil
	}
	maxWait := l.st.Load().maxWait
	if maxWait <= 0 {
		return false, l.reject(ctx)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	limit := int64(maxWait)
	if dl, ok := ctx.Deadline(); ok {
		limit = min(limit, int64(dl.Sub(l.clock.Now())))
	}
	d, res, ok := l.take(now, limit)
	if !ok {
		return false, l.reject(ctx)
	}
	if d == 0 {
		return false, nil // a permit came free meanwhile
	}
	if err := policy.Sleep(ctx, l.clock, time.Duration(d)); err != nil {
		l.giveBack(res)
		return true, err
	}
	return true, nil
}

// reject counts a rejection, publishes it with the call's ctx and returns
// the preallocated error.
func (l *Limiter) reject(ctx context.Context) error {
	l.rejections.Add(1)
	if l.bus.Active() {
		l.bus.PublishContext(ctx, l.rejectEvent)
	}
	return l.err
}
