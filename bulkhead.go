package r4c

import (
	"time"

	"github.com/resilience4cata/r4c/policy/bulkhead"
)

type bulkheadStore = store[bulkhead.Config, *bulkhead.Bulkhead]

var bulkheadKind = &kind[bulkhead.Config, *bulkhead.Bulkhead]{
	key:      "bulkhead",
	aliases:  []string{},
	defaults: bulkhead.Config.WithDefaults,
	validate: bulkhead.Config.Validate,
	build:    bulkhead.New,
	names:    func(c *bulkhead.Config) (*string, *string) { return &c.Name, &c.BaseConfig },
	fields: []field[bulkhead.Config]{
		enabledField(func(c *bulkhead.Config) *bool { return &c.Disabled }),
		intField("maxConcurrent", "25", ">= 1", "how many calls may run at once", 1,
			func(c *bulkhead.Config) *int { return &c.MaxConcurrent }),
		durField("maxWait", "0 (fail fast)", ">= 0", "how long a call may wait, in FIFO order, for a free slot", false,
			func(c *bulkhead.Config) *time.Duration { return &c.MaxWait }),
	},
}

// WithBulkheadDefaults sets what every bulkhead of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithBulkheadDefaults(configure func(*bulkhead.Config)) Option {
	return defaultsOption(func(r *Registry) *bulkheadStore { return r.bulkhead }, configure)
}

// WithBulkheadConfig defines (or adds to) the named bulkhead configuration name,
// used through Config.BaseConfig.
func WithBulkheadConfig(name string, configure func(*bulkhead.Config)) Option {
	return configOption(func(r *Registry) *bulkheadStore { return r.bulkhead }, name, configure)
}

// Bulkhead returns the handle of the bulkhead with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) Bulkhead(id string) (*bulkhead.Handle, error) {
	x, err := lookup(r, r.bulkhead, id)
	if err != nil {
		return nil, err
	}
	return x.Handle(), nil
}

// Bulkhead resolves the bulkhead of a pipeline called pipeline; see
// [Tx.AdaptiveLimit].
func (tx *Tx) Bulkhead(pipeline string, configure func(*bulkhead.Config)) (*bulkhead.Bulkhead, error) {
	x, _, err := resolveIn(tx, tx.r.bulkhead, pipeline, configure)
	return x, err
}
