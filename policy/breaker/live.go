package breaker

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// SetFailureRateThreshold sets the failure rate (a fraction in (0, 1]) at
// which the breaker opens, from the next evaluation: the next call
// recorded in the closed window, or the last trial of a half-open stay.
// The calls already in the window count against the new threshold. An
// invalid rate is refused with [Config.Validate]'s [*policy.FieldError]
// (r4c.ClassCode: R4C-ATR-005) and nothing changes. A change publishes an
// events.ConfigChanged.
func (h *Handle) SetFailureRateThreshold(rate float64) error {
	return h.b.update(func(c *Config) { c.FailureRateThreshold = rate })
}

// SetSlowCallRateThreshold sets the slow-call rate at which the breaker
// opens, from the next evaluation, like [Handle.SetFailureRateThreshold].
func (h *Handle) SetSlowCallRateThreshold(rate float64) error {
	return h.b.update(func(c *Config) { c.SlowCallRateThreshold = rate })
}

// SetSlowCallDuration sets the latency above which a call counts as slow,
// for the calls that end from now on.
func (h *Handle) SetSlowCallDuration(d time.Duration) error {
	return h.b.update(func(c *Config) { c.SlowCallDuration = d })
}

// SetMinimumCalls sets the calls the closed window needs before its rates
// count, from the next evaluation.
func (h *Handle) SetMinimumCalls(n int) error {
	return h.b.update(func(c *Config) { c.MinimumCalls = n })
}

// SetOpenFor sets how long the breaker stays open before trial calls; an
// open stay that began before the change ends OpenFor after it began, by
// the new OpenFor.
func (h *Handle) SetOpenFor(d time.Duration) error {
	return h.b.update(func(c *Config) { c.OpenFor = d })
}

// SetHalfOpenCalls sets the trial calls of a half-open stay, from the next
// half-open stay (a stay in progress keeps its number of trials).
func (h *Handle) SetHalfOpenCalls(n int) error {
	return h.b.update(func(c *Config) { c.HalfOpenCalls = n })
}

// SetMaxHalfOpenWait sets how long half-open may wait for its trials
// before opening again (0: for ever), from the next call admitted.
func (h *Handle) SetMaxHalfOpenWait(d time.Duration) error {
	return h.b.update(func(c *Config) { c.MaxHalfOpenWait = d })
}

// Reconfigure applies cfg (defaulted with [Config.WithDefaults]) to the
// running breaker as one change, with the timing of the setters above. A
// cfg that changes a key that is not live (enabled, windowType, windowSize,
// windowDuration: the window is the breaker's memory) is refused with a
// [*policy.FieldError] of class [policy.ClassNotLive] (R4C-REG-011), an
// invalid one with [Config.Validate]'s error, and then nothing changes.
// Name, BaseConfig and the code-only fields of cfg are ignored. It is what
// Registry.Reload calls.
func (h *Handle) Reconfigure(cfg Config) error {
	return h.b.update(func(c *Config) {
		keep := *c
		*c = cfg.WithDefaults()
		c.Name, c.BaseConfig = keep.Name, keep.BaseConfig
		c.RecordOn, c.RecordIf, c.IgnoreOn, c.IgnoreIf = keep.RecordOn, keep.RecordIf, keep.IgnoreOn, keep.IgnoreIf
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
	return h.b.update(func(c *Config) {
		keep := *c
		fn(c)
		c.Name, c.BaseConfig = keep.Name, keep.BaseConfig
		c.RecordOn, c.RecordIf, c.IgnoreOn, c.IgnoreIf = keep.RecordOn, keep.RecordIf, keep.IgnoreOn, keep.IgnoreIf
	})
}

func (b *Breaker) update(fn func(*Config)) error {
	b.mu.Lock()
	next := b.cfg
	fn(&next)
	if err := next.Validate(); err != nil {
		b.mu.Unlock()
		return err
	}
	if err := keys.CheckLive(&b.cfg, &next); err != nil {
		b.mu.Unlock()
		return err
	}
	changes := keys.Changes(&b.cfg, &next)
	if len(changes) == 0 {
		b.mu.Unlock()
		return nil
	}
	b.th.Store(newThresholds(&next))
	b.cfg = next
	b.mu.Unlock()
	policy.PublishChanged(b.bus, "breaker", b.instance, changes)
	return nil
}
