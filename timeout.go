package r4c

import (
	"time"

	"github.com/resilience4cata/r4c/policy/timeout"
)

type timeoutStore = store[timeout.Config, *timeout.Timeout]

var timeoutKind = &kind[timeout.Config, *timeout.Timeout]{
	key:      "timeout",
	aliases:  []string{},
	defaults: timeout.Config.WithDefaults,
	validate: timeout.Config.Validate,
	build:    timeout.New,
	names:    func(c *timeout.Config) (*string, *string) { return &c.Name, &c.BaseConfig },
	fields: []field[timeout.Config]{
		enabledField(func(c *timeout.Config) *bool { return &c.Disabled }),
		durField("timeout", "1s", "> 0", "how long a call may run before the caller gets a CallTimeoutError", true,
			func(c *timeout.Config) *time.Duration { return &c.Timeout }),
		boolField("cooperative", "false", "run the call on the caller's goroutine and rely on it honouring its ctx",
			func(c *timeout.Config) *bool { return &c.Cooperative }),
	},
}

// WithTimeoutDefaults sets what every timeout of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithTimeoutDefaults(configure func(*timeout.Config)) Option {
	return defaultsOption(func(r *Registry) *timeoutStore { return r.timeout }, configure)
}

// WithTimeoutConfig defines (or adds to) the named timeout configuration name,
// used through Config.BaseConfig.
func WithTimeoutConfig(name string, configure func(*timeout.Config)) Option {
	return configOption(func(r *Registry) *timeoutStore { return r.timeout }, name, configure)
}

// Timeout returns the handle of the timeout with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) Timeout(id string) (*timeout.Handle, error) {
	x, err := lookup(r, r.timeout, id)
	if err != nil {
		return nil, err
	}
	return x.Handle(), nil
}

// Timeout resolves the timeout of a pipeline called pipeline; see
// [Tx.AdaptiveLimit].
func (tx *Tx) Timeout(pipeline string, configure func(*timeout.Config)) (*timeout.Timeout, error) {
	x, _, err := resolveIn(tx, tx.r.timeout, pipeline, configure)
	return x, err
}
