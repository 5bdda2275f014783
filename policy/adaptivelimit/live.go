package adaptivelimit

import (
	"github.com/resilience4cata/r4c/policy"
)

// SetMinLimit sets the lowest the limit goes, at once: a limit below it is
// raised to it (and the calls waiting under MaxWait take the new slots).
// A bound below 1 or above MaxLimit is refused with [Config.Validate]'s
// [*policy.FieldError] (r4c.ClassCode: R4C-ATR-003 or R4C-ATR-009) and
// nothing changes. To move both bounds past each other, use
// [Handle.SetLimits]. InitialLimit, which only a limit built later uses,
// is moved into the new bounds. A change publishes an
// events.ConfigChanged.
func (h *Handle) SetMinLimit(min int) error {
	return h.l.update(func(c *Config) { c.MinLimit = min; c.moveInitial() })
}

// SetMaxLimit sets the highest the limit goes, at once: a limit above it is
// lowered to it, and new calls are rejected (or wait) until the calls in
// flight are below it; nothing in flight is interrupted. A bound below 1,
// below MinLimit or above 2^30 is refused with a [*policy.FieldError] and
// nothing changes.
func (h *Handle) SetMaxLimit(max int) error {
	return h.l.update(func(c *Config) { c.MaxLimit = max; c.moveInitial() })
}

// SetLimits sets both bounds as one change, with the rules of
// [Handle.SetMinLimit] and [Handle.SetMaxLimit]; the current limit (and
// the algorithm's estimate) is moved into [min, max].
func (h *Handle) SetLimits(min, max int) error {
	return h.l.update(func(c *Config) { c.MinLimit, c.MaxLimit = min, max; c.moveInitial() })
}

// moveInitial moves InitialLimit, which only a limit built later uses,
// into bounds that are in order.
func (c *Config) moveInitial() {
	if c.MinLimit >= 1 && c.MinLimit <= c.MaxLimit {
		c.InitialLimit = min(max(c.InitialLimit, c.MinLimit), c.MaxLimit)
	}
}

// Reconfigure applies cfg (defaulted with [Config.WithDefaults]) to the
// running limit as one change. The live keys (see [Keys]) take effect from
// the next window, the bounds at once; initialLimit only matters to a limit
// built later. A cfg that changes a key that is not live (enabled,
// algorithm, maxWait) is refused with a [*policy.FieldError] of class
// [policy.ClassNotLive] (R4C-REG-011), an invalid one with
// [Config.Validate]'s error, and then nothing changes. Name, BaseConfig and
// the code-only fields (DropOn, DropIf) of cfg are ignored. It is what
// Registry.Reload calls.
func (h *Handle) Reconfigure(cfg Config) error {
	return h.l.update(func(c *Config) {
		keep := *c
		*c = cfg.WithDefaults()
		c.Name, c.BaseConfig, c.DropOn, c.DropIf = keep.Name, keep.BaseConfig, keep.DropOn, keep.DropIf
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
		keep := *c
		fn(c)
		c.Name, c.BaseConfig, c.DropOn, c.DropIf = keep.Name, keep.BaseConfig, keep.DropOn, keep.DropIf
	})
}

// update changes the configuration with fn, validates the result and
// applies it under the window's lock: only the fields of the keys that
// changed are written, so that the lock-free readers of the others (DropOn,
// MaxWait) never race with it.
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
	changes := keys.Changes(&l.cfg, &next)
	if len(changes) == 0 {
		l.mu.Unlock()
		return nil
	}
	for _, ch := range changes {
		k := keys.At(keys.Index(ch.Key))
		k.Copy(&l.cfg, &next)
	}
	w := &l.win
	old := w.limit
	w.limit = min(max(w.limit, l.cfg.MinLimit), l.cfg.MaxLimit)
	w.alg.estimate = clampFloat(w.alg.estimate, &l.cfg)
	l.storeLimit(w.limit)
	raised := w.limit > old
	l.mu.Unlock()
	if raised && l.waitOn && l.hot.waiting.Load() != 0 {
		l.handoff()
	}
	policy.PublishChanged(l.bus, "adaptivelimit", l.instance, changes)
	return nil
}
