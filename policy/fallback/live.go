package fallback

// Reconfigure checks cfg (defaulted with [Config.WithDefaults]) against the
// running fallback. Its one key, enabled, cannot change while it runs: a
// cfg that changes it is refused with a [*policy.FieldError] of class
// policy.ClassNotLive (R4C-REG-011); a cfg equal to the current one is
// accepted and changes nothing. It is what Registry.Reload calls.
func (h *Handle) Reconfigure(cfg Config) error {
	next := cfg.WithDefaults()
	if err := next.Validate(); err != nil {
		return err
	}
	cur := h.f.cfg
	return keys.CheckLive(&cur, &next)
}

// Update applies fn to a copy of the running configuration and checks the
// result as [Handle.Reconfigure] does: since enabled is not live, it
// changes nothing, and refuses a change of it.
func (h *Handle) Update(fn func(*Config)) error {
	cur := h.f.cfg
	next := cur
	fn(&next)
	if err := next.Validate(); err != nil {
		return err
	}
	return keys.CheckLive(&cur, &next)
}
