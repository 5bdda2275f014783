package r4c

import (
	"time"

	"github.com/resilience4cata/r4c/policy/ratelimit"
)

type ratelimitStore = store[ratelimit.Config, *ratelimit.Limiter]

var ratelimitKind = &kind[ratelimit.Config, *ratelimit.Limiter]{
	key:      "rateLimit",
	aliases:  []string{"rateLimiter"},
	defaults: ratelimit.Config.WithDefaults,
	validate: ratelimit.Config.Validate,
	build:    ratelimit.New,
	names:    func(c *ratelimit.Config) (*string, *string) { return &c.Name, &c.BaseConfig },
	fields: []field[ratelimit.Config]{
		enabledField(func(c *ratelimit.Config) *bool { return &c.Disabled }),
		intField("limit", "50", ">= 1, at most one per nanosecond of period", "permits per period", 1,
			func(c *ratelimit.Config) *int { return &c.Limit }),
		durField("period", "1s", "> 0", "the period the limit is counted over", true,
			func(c *ratelimit.Config) *time.Duration { return &c.Period }),
		intField("burst", "limit", ">= 1", "how many permits may be taken at once after a quiet spell", 1,
			func(c *ratelimit.Config) *int { return &c.Burst }),
		durField("maxWait", "0 (reject at once)", ">= 0", "how long a call may wait for a permit", false,
			func(c *ratelimit.Config) *time.Duration { return &c.MaxWait }),
	},
}

// WithRateLimitDefaults sets what every rate limiter of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithRateLimitDefaults(configure func(*ratelimit.Config)) Option {
	return defaultsOption(func(r *Registry) *ratelimitStore { return r.ratelimit }, configure)
}

// WithRateLimitConfig defines (or adds to) the named rate limiter configuration name,
// used through Config.BaseConfig.
func WithRateLimitConfig(name string, configure func(*ratelimit.Config)) Option {
	return configOption(func(r *Registry) *ratelimitStore { return r.ratelimit }, name, configure)
}

// RateLimit returns the handle of the rate limiter with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) RateLimit(id string) (*ratelimit.Handle, error) {
	x, err := lookup(r, r.ratelimit, id)
	if err != nil {
		return nil, err
	}
	return x.Handle(), nil
}

// RateLimit resolves the rate limiter of a pipeline called pipeline; see
// [Tx.AdaptiveLimit].
func (tx *Tx) RateLimit(pipeline string, configure func(*ratelimit.Config)) (*ratelimit.Limiter, error) {
	x, _, err := resolveIn(tx, tx.r.ratelimit, pipeline, configure)
	return x, err
}
