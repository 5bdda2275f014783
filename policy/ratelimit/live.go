package ratelimit

import (
	"math"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// SetLimit sets how many permits come free per Period, keeping Period and
// Burst, from the next permit on: the permits free now stay free (up to
// Burst), and the rest come back at the new rate. It is the rate
// limiter's answer to x/time/rate's SetLimit and resilience4j's
// changeLimitForPeriod. A limit below 1, or one that spaces permits less
// than a nanosecond apart, is refused with the [*policy.FieldError] that
// [Config.Validate] gives (r4c.ClassCode maps its Class to the code
// R4C-ATR-003 or R4C-ATR-010), and nothing changes. A change publishes an
// events.ConfigChanged.
func (h *Handle) SetLimit(limit int) error {
	return h.l.update(func(c *Config) { c.Limit = limit })
}

// SetRate sets the limit and the period together: limit permits per
// period, from the next permit on, as [Handle.SetLimit] describes.
func (h *Handle) SetRate(limit int, period time.Duration) error {
	return h.l.update(func(c *Config) { c.Limit, c.Period = limit, period })
}

// SetBurst sets the most permits that can be taken at once, like
// x/time/rate's SetBurst: the permits free now stay free, up to the new
// burst; a larger burst fills up at the rate, it is not granted at once.
// A burst below 1 is refused with a [*policy.FieldError] (R4C-ATR-003).
func (h *Handle) SetBurst(burst int) error {
	return h.l.update(func(c *Config) { c.Burst = burst })
}

// SetMaxWait sets how long a call may wait for its permit (0: reject at
// once), for the calls that start waiting from now on. A negative wait is
// refused with a [*policy.FieldError] (R4C-ATR-004).
func (h *Handle) SetMaxWait(d time.Duration) error {
	return h.l.update(func(c *Config) { c.MaxWait = d })
}

// Reconfigure applies cfg (defaulted with [Config.WithDefaults]) to the
// running limiter, as one change: every key that differs from the current
// [Handle.Config] must be live (see [Keys]; enabled is not), or the whole
// change is refused with a [*policy.FieldError] of class
// [policy.ClassNotLive] (R4C-REG-011); an invalid cfg is refused with
// [Config.Validate]'s error. Name and BaseConfig are ignored. It is what
// Registry.Reload calls.
func (h *Handle) Reconfigure(cfg Config) error {
	return h.l.update(func(c *Config) {
		name, base := c.Name, c.BaseConfig
		*c = cfg.WithDefaults()
		c.Name, c.BaseConfig = name, base
	})
}

// Update applies fn to the running configuration (as [Handle.Config]
// returns it) and applies the result as one change, atomically with the
// other setters: a read-modify-write that no concurrent setter can
// interleave with. The result is validated as it is (not defaulted), with
// the rules of [Handle.Reconfigure]; what fn does to Name, BaseConfig and
// the code-only fields is ignored. fn runs under the instance's lock: it
// must not call the instance, its handle or the registry. It is what
// Registry.Reload calls, with the keys that changed in the sources.
func (h *Handle) Update(fn func(*Config)) error {
	return h.l.update(func(c *Config) {
		name, base := c.Name, c.BaseConfig
		fn(c)
		c.Name, c.BaseConfig = name, base
	})
}

// update changes the configuration with fn, validates the result and
// applies it at once: a new era whose bucket holds the permits free now.
func (l *Limiter) update(fn func(*Config)) error {
	l.mu.Lock()
	next := l.cfg
	fn(&next)
	if err := next.Validate(); err != nil {
		l.mu.Unlock()
		return err
	}
	if err := keys.CheckLive(&l.cfg, &next); err != nil {
		l.mu.Unlock()
		return err
	}
	if err := l.checkStoreLive(&next); err != nil {
		l.mu.Unlock()
		return err
	}
	changes := keys.Changes(&l.cfg, &next)
	if len(changes) == 0 {
		l.mu.Unlock()
		return nil
	}
	ne := newEra(&next)
	ne.tat.Store(closed)
	old := l.st.Swap(ne)
	var tat int64
	for {
		tat = old.tat.Load()
		if old.tat.CompareAndSwap(tat, closed) {
			break
		}
	}
	ne.tat.Store(carry(old, ne, tat, l.clock.Nanotime()))
	l.cfg = next
	l.err.setMessage(next.Limit, next.Period)
	l.mu.Unlock()
	policy.PublishChanged(l.bus, "ratelimit", l.instance, changes)
	return nil
}

// carry returns the tat of era ne that keeps the permits free at now in
// era old (whose tat was tat), at most ne.burst: the tokens of a token
// bucket are kept, the refill of the rest follows the new rate.
func carry(old, ne *era, tat, now int64) int64 {
	owed := float64(max(tat-now, 0)) / float64(old.interval) // permits taken and not yet back
	free := max(float64(old.burst)-owed, 0)
	debt := (float64(ne.burst) - min(free, float64(ne.burst))) * float64(ne.interval)
	if debt >= float64(math.MaxInt64-max(now, 0)) {
		return math.MaxInt64
	}
	return now + int64(math.Round(debt))
}

// checkStoreLive refuses a new rate for a limiter whose state lives in a
// [Store]: the store's buckets, the other processes and the local fallback
// were all set up for the rate the limiter was built with, so limit,
// period and burst cannot change while it runs (restart every process with
// the new rate instead). maxWait stays live.
func (l *Limiter) checkStoreLive(next *Config) error {
	if l.remote == nil {
		return nil
	}
	cur := &l.cfg
	notLive := func(key, old, new string) error {
		return &policy.FieldError{Key: key, Value: new, Class: policy.ClassNotLive,
			Rule: "cannot change while the limiter keeps its state in a store (it is " + old +
				"): every process shares that rate; restart them all with the new one"}
	}
	switch {
	case next.Limit != cur.Limit:
		return notLive("limit", policy.Int(cur.Limit), policy.Int(next.Limit))
	case next.Period != cur.Period:
		return notLive("period", policy.Dur(cur.Period), policy.Dur(next.Period))
	case next.Burst != cur.Burst:
		return notLive("burst", policy.Int(cur.Burst), policy.Int(next.Burst))
	}
	return nil
}
