package timeout

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// SetTimeout sets how long a call may run, from the next call on: a call
// in flight keeps the deadline it started with. A timeout that is not
// positive is refused with [Config.Validate]'s [*policy.FieldError]
// (r4c.ClassCode: R4C-ATR-004) and nothing changes. A change publishes an
// events.ConfigChanged, and the [*CallTimeoutError] names the new timeout.
func (h *Handle) SetTimeout(d time.Duration) error {
	return h.t.update(func(c *Config) { c.Timeout = d })
}

// Reconfigure applies cfg (defaulted with [Config.WithDefaults]) to the
// running timeout as one change: only the key timeout is live. A cfg that
// changes enabled or cooperative is refused with a [*policy.FieldError] of
// class [policy.ClassNotLive] (R4C-REG-011), an invalid one with
// [Config.Validate]'s error, and then nothing changes. Name and BaseConfig
// are ignored. It is what Registry.Reload calls.
func (h *Handle) Reconfigure(cfg Config) error {
	return h.t.update(func(c *Config) {
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
	return h.t.update(func(c *Config) {
		name, base := c.Name, c.BaseConfig
		fn(c)
		c.Name, c.BaseConfig = name, base
	})
}

func (t *Timeout) update(fn func(*Config)) error {
	t.mu.Lock()
	next := t.cfg
	fn(&next)
	if err := next.Validate(); err != nil {
		t.mu.Unlock()
		return err
	}
	if err := keys.CheckLive(&t.cfg, &next); err != nil {
		t.mu.Unlock()
		return err
	}
	changes := keys.Changes(&t.cfg, &next)
	if len(changes) == 0 {
		t.mu.Unlock()
		return nil
	}
	t.d.Store(int64(next.Timeout))
	t.err.set(next.Timeout)
	t.cfg = next
	t.mu.Unlock()
	policy.PublishChanged(t.bus, "timeout", t.instance, changes)
	return nil
}
