package bulkhead

import (
	"github.com/resilience4cata/r4c/policy"
)

// SetMaxConcurrent sets the number of slots, at once and without touching
// a call in flight, like resilience4j's changeConfig: raised, the new slots
// go first to the calls waiting in the queue (under MaxWait), in order;
// lowered below the calls in flight, new calls are rejected (or wait) until
// enough have ended, and then no more than max run at once. A max below 1
// is refused with [Config.Validate]'s [*policy.FieldError]
// (r4c.ClassCode: R4C-ATR-003) and nothing changes. A change publishes an
// events.ConfigChanged.
func (h *Handle) SetMaxConcurrent(max int) error {
	return h.b.update(func(c *Config) { c.MaxConcurrent = max })
}

// Reconfigure applies cfg (defaulted with [Config.WithDefaults]) to the
// running bulkhead as one change. Only maxConcurrent is live: a cfg that
// changes enabled or maxWait is refused with a [*policy.FieldError] of
// class [policy.ClassNotLive] (R4C-REG-011), an invalid one with
// [Config.Validate]'s error, and then nothing changes. Name and BaseConfig
// are ignored. It is what Registry.Reload calls.
func (h *Handle) Reconfigure(cfg Config) error {
	return h.b.update(func(c *Config) {
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
	return h.b.update(func(c *Config) {
		name, base := c.Name, c.BaseConfig
		fn(c)
		c.Name, c.BaseConfig = name, base
	})
}

func (b *Bulkhead) update(fn func(*Config)) error {
	b.cmu.Lock()
	next := b.cfg
	fn(&next)
	if err := next.Validate(); err != nil {
		b.cmu.Unlock()
		return err
	}
	if err := keys.CheckLive(&b.cfg, &next); err != nil {
		b.cmu.Unlock()
		return err
	}
	changes := keys.Changes(&b.cfg, &next)
	if len(changes) == 0 {
		b.cmu.Unlock()
		return nil
	}
	b.setMax(int64(next.MaxConcurrent))
	b.err.setMax(next.MaxConcurrent)
	b.cfg = next
	b.cmu.Unlock()
	policy.PublishChanged(b.bus, "bulkhead", b.instance, changes)
	return nil
}

// setMax makes max the number of slots. Once it returns, no call takes a
// slot on the old number: an acquisition reads inFlight, then max, then
// swaps inFlight for itself plus one, and setMax moves inFlight's high
// bits after it stores max, so that the swap of one that read the old max
// fails and it reads again. Hand-offs read max under mu, which setMax
// holds. New slots go to the queue's front waiters first.
func (b *Bulkhead) setMax(max int64) {
	b.mu.Lock()
	old := b.max.Swap(max)
	b.inFlight.Add(1 << 32)
	if max > old {
		b.handOffLocked()
	}
	b.mu.Unlock()
}
