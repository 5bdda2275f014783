package ratelimit

import (
	"context"
	"strconv"
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
	// tat is the theoretical arrival time: the clock reading at which the
	// bucket would be empty again if nobody took another permit. A permit
	// may be taken at now when max(tat, now) - now <= tolerance, and taking
	// it moves tat to max(tat, now) + interval.
	tat       atomic.Int64
	interval  int64 // Period / Limit in nanoseconds, at least 1
	tolerance int64 // (Burst - 1) * interval

	cfg          Config // as built, defaults filled in; for the handle
	limit, burst int
	period       time.Duration
	maxWait      time.Duration
	disabled     bool
	clock        policy.Clock
	bus          *events.Bus
	instance     string
	err          *RateLimitedError

	rejections atomic.Uint64

	remote *remote // nil without a Store (store.go, remote.go)
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
	interval := int64(cfg.Period) / int64(cfg.Limit)
	l := &Limiter{
		cfg:       cfg,
		interval:  interval,
		tolerance: int64(cfg.Burst-1) * interval,
		limit:     cfg.Limit,
		burst:     cfg.Burst,
		period:    cfg.Period,
		maxWait:   cfg.MaxWait,
		disabled:  cfg.Disabled,
		clock:     env.ClockOrSystem(),
		bus:       env.Events,
		instance:  env.Instance,
	}
	msg := "r4c: rate limited: " + strconv.Itoa(cfg.Limit) + " per " + cfg.Period.String()
	if env.Instance != "" {
		msg += " (ratelimit " + env.Instance + ")"
	}
	l.err = &RateLimitedError{l: l, instance: env.Instance, msg: msg}
	// Boxed once, so that publishing a rejection allocates nothing.
	l.rejectEvent = events.CallRejected{Policy: "ratelimit", Instance: env.Instance, Err: l.err}
	l.tat.Store(l.clock.Nanotime())
	if cfg.Store != nil {
		l.remote = newRemote(l, cfg, l.tat.Load())
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
	d, ok := l.take(now, 0)
	if !ok {
		l.reject()
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
	tat := l.tat.Load()
	if tat <= now {
		return l.burst
	}
	room := now + l.tolerance - tat // how far tat may still advance
	if room < 0 {
		return 0
	}
	return int(room/l.interval) + 1
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
	if d := l.tat.Load() - now - l.tolerance; d > 0 {
		return time.Duration(d)
	}
	return 0
}

// take takes the next permit if it comes within maxWait of now, and returns
// how long after now it comes (0 if it is free at once). If it comes later,
// take takes nothing and returns false with the wait it would have needed.
func (l *Limiter) take(now, maxWait int64) (wait int64, ok bool) {
	for {
		tat := l.tat.Load()
		t := max(tat, now)
		wait = t - now - l.tolerance
		if wait > maxWait {
			return wait, false
		}
		if l.tat.CompareAndSwap(tat, t+l.interval) {
			return max(wait, 0), true
		}
	}
}

// giveBack returns a permit taken by a wait that was cancelled. The permit
// goes back to the bucket, never above Burst: if the bucket refilled in the
// meantime, there is nothing to give back.
func (l *Limiter) giveBack() {
	l.tat.Add(-l.interval)
}

// wait takes a permit at now as [Limiter.Wait] describes, and reports
// whether it had to wait.
func (l *Limiter) wait(ctx context.Context, now int64) (waited bool, err error) {
	if l.remote != nil {
		return l.remote.take(ctx, now, l.remote.maxWaitFor(ctx))
	}
	if _, ok := l.take(now, 0); ok {
		return false, nil
	}
	if l.maxWait <= 0 {
		return false, l.reject()
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	limit := int64(l.maxWait)
	if dl, ok := ctx.Deadline(); ok {
		limit = min(limit, int64(dl.Sub(l.clock.Now())))
	}
	d, ok := l.take(now, limit)
	if !ok {
		return false, l.reject()
	}
	if d == 0 {
		return false, nil // a permit came free meanwhile
	}
	if err := policy.Sleep(ctx, l.clock, time.Duration(d)); err != nil {
		l.giveBack()
		return true, err
	}
	return true, nil
}

// reject counts a rejection, publishes it and returns the preallocated
// error.
func (l *Limiter) reject() error {
	l.rejections.Add(1)
	if l.bus.Active() {
		l.bus.Publish(l.rejectEvent)
	}
	return l.err
}
