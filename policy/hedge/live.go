package hedge

// Reconfigure checks cfg (defaulted with [Config.WithDefaults]) against the
// running hedge. No key of a hedge can change while it runs (its delay and
// attempts shape every call in flight): a cfg that changes one is refused
// with a [*policy.FieldError] of class policy.ClassNotLive (R4C-REG-011),
// an invalid one with [Config.Validate]'s error; a cfg equal to the
// current one is accepted and changes nothing. It is what Registry.Reload
// calls.
func (h *Handle) Reconfigure(cfg Config) error {
	next := cfg.WithDefaults()
	if err := next.Validate(); err != nil {
		return err
	}
	cur := h.h.cfg
	return keys.CheckLive(&cur, &next)
}

// Update applies fn to a copy of the running configuration and checks the
// result as [Handle.Reconfigure] does, without defaults: since no key of a
// hedge is live, it changes nothing, and refuses any change of a key.
func (h *Handle) Update(fn func(*Config)) error {
	cur := h.h.cfg
	next := cur
	fn(&next)
	if err := next.Validate(); err != nil {
		return err
	}
	return keys.CheckLive(&cur, &next)
}
