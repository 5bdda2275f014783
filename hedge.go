package r4c

import (
	"time"

	"github.com/resilience4cata/r4c/policy/hedge"
)

type hedgeStore = store[hedge.Config, *hedge.Hedge]

var hedgeKind = &kind[hedge.Config, *hedge.Hedge]{
	key:      "hedge",
	aliases:  []string{},
	defaults: hedge.Config.WithDefaults,
	validate: hedge.Config.Validate,
	build:    hedge.New,
	names:    func(c *hedge.Config) (*string, *string) { return &c.Name, &c.BaseConfig },
	fields: []field[hedge.Config]{
		enabledField(func(c *hedge.Config) *bool { return &c.Disabled }),
		durField("delay", "1s", "> 0", "how long to wait for a result before starting another attempt", true,
			func(c *hedge.Config) *time.Duration { return &c.Delay }),
		intField("maxHedged", "1", "[1, 10]", "extra attempts at most", 1,
			func(c *hedge.Config) *int { return &c.MaxHedged }),
	},
}

// WithHedgeDefaults sets what every hedge of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithHedgeDefaults(configure func(*hedge.Config)) Option {
	return defaultsOption(func(r *Registry) *hedgeStore { return r.hedge }, configure)
}

// WithHedgeConfig defines (or adds to) the named hedge configuration name,
// used through Config.BaseConfig.
func WithHedgeConfig(name string, configure func(*hedge.Config)) Option {
	return configOption(func(r *Registry) *hedgeStore { return r.hedge }, name, configure)
}

// Hedge returns the handle of the hedge with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) Hedge(id string) (*hedge.Handle, error) {
	x, err := lookup(r, r.hedge, id)
	if err != nil {
		return nil, err
	}
	return x.Handle(), nil
}

// Hedge resolves the hedge of a pipeline called pipeline; see
// [Tx.AdaptiveLimit].
func (tx *Tx) Hedge(pipeline string, configure func(*hedge.Config)) (*hedge.Hedge, error) {
	x, _, err := resolveIn(tx, tx.r.hedge, pipeline, configure)
	return x, err
}
