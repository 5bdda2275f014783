package retry

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// SetMaxAttempts sets the most attempts a call makes, the first included,
// from the next decision to retry: a call in progress that has made as
// many attempts as the new maximum gives up after its current attempt. A
// maximum below 1 is refused with [Config.Validate]'s [*policy.FieldError]
// (r4c.ClassCode: R4C-ATR-003) and nothing changes. A change publishes an
// events.ConfigChanged.
func (h *Handle) SetMaxAttempts(n int) error {
	return h.r.update(func(c *Config) { c.MaxAttempts = n })
}

// SetBackoff sets the wait before the first retry, the multiplier of each
// next wait and the cap on a wait (0: none) as one change, from the next
// wait (a wait in progress runs its course). Invalid values (a negative
// wait, a multiplier below 1, a cap below the wait) are refused with a
// [*policy.FieldError] and nothing changes.
func (h *Handle) SetBackoff(wait time.Duration, multiplier float64, maxDelay time.Duration) error {
	return h.r.update(func(c *Config) { c.Wait, c.Multiplier, c.MaxDelay = wait, multiplier, maxDelay })
}

// Reconfigure applies cfg (defaulted with [Config.WithDefaults]) to the
// running retry as one change: maxAttempts, wait, multiplier, maxDelay and
// jitter are live. A cfg that changes another key (enabled, the budget's)
// is refused with a [*policy.FieldError] of class [policy.ClassNotLive]
// (R4C-REG-011), an invalid one with [Config.Validate]'s error, and then
// nothing changes. Name, BaseConfig and the code-only fields of cfg are
// ignored. It is what Registry.Reload calls.
func (h *Handle) Reconfigure(cfg Config) error {
	return h.r.update(func(c *Config) {
		keep := *c
		*c = cfg.WithDefaults()
		c.Name, c.BaseConfig = keep.Name, keep.BaseConfig
		c.RetryOn, c.RetryIf, c.AbortOn, c.AbortIf = keep.RetryOn, keep.RetryIf, keep.AbortOn, keep.AbortIf
		c.RetryIfResult, c.Rand = keep.RetryIfResult, keep.Rand
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
	return h.r.update(func(c *Config) {
		keep := *c
		fn(c)
		c.Name, c.BaseConfig = keep.Name, keep.BaseConfig
		c.RetryOn, c.RetryIf, c.AbortOn, c.AbortIf = keep.RetryOn, keep.RetryIf, keep.AbortOn, keep.AbortIf
		c.RetryIfResult, c.Rand = keep.RetryIfResult, keep.Rand
	})
}

func (r *Retry) update(fn func(*Config)) error {
	r.mu.Lock()
	next := r.cfg
	fn(&next)
	if err := next.Validate(); err != nil {
		r.mu.Unlock()
		return err
	}
	if err := keys.CheckLive(&r.cfg, &next); err != nil {
		r.mu.Unlock()
		return err
	}
	changes := keys.Changes(&r.cfg, &next)
	if len(changes) == 0 {
		r.mu.Unlock()
		return nil
	}
	r.bo.Store(newBackoff(&next))
	r.cfg = next
	r.mu.Unlock()
	policy.PublishChanged(r.bus, "retry", r.instance, changes)
	return nil
}
