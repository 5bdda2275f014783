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
