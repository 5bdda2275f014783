package r4c

import (
	"time"

	"github.com/resilience4cata/r4c/policy/breaker"
)

type breakerStore = store[breaker.Config, *breaker.Breaker]

var breakerKind = &kind[breaker.Config, *breaker.Breaker]{
	key:      "breaker",
	aliases:  []string{"circuitBreaker"},
	defaults: breaker.Config.WithDefaults,
	validate: breaker.Config.Validate,
	build:    breaker.New,
	names:    func(c *breaker.Config) (*string, *string) { return &c.Name, &c.BaseConfig },
	fields: []field[breaker.Config]{
		enabledField(func(c *breaker.Config) *bool { return &c.Disabled }),
		choiceField("windowType", "count-based", "how the sliding window is kept",
			map[string]breaker.WindowType{"count-based": breaker.CountBased, "time-based": breaker.TimeBased},
			func(c *breaker.Config) *breaker.WindowType { return &c.WindowType }),
		intField("windowSize", "100", "[1, 1000000]", "the calls a count-based window holds", 1,
			func(c *breaker.Config) *int { return &c.WindowSize }),
		durField("windowDuration", "60s", "[1ms, 24h]", "the span of a time-based window", true,
			func(c *breaker.Config) *time.Duration { return &c.WindowDuration }),
		intField("minimumCalls", "100", ">= 1", "the calls the window needs before rates count", 1,
			func(c *breaker.Config) *int { return &c.MinimumCalls }),
		floatField("failureRateThreshold", "50", "(0, 100]", "the failure percentage that opens the breaker",
			func(f float64) string { return ruleIf(!(f > 0 && f <= 100), "must be above 0 and at most 100") },
			func(c *breaker.Config) *float64 { return &c.FailureRateThreshold }),
		floatField("slowCallRateThreshold", "100", "(0, 100]", "the slow-call percentage that opens the breaker",
			func(f float64) string { return ruleIf(!(f > 0 && f <= 100), "must be above 0 and at most 100") },
			func(c *breaker.Config) *float64 { return &c.SlowCallRateThreshold }),
		durField("slowCallDuration", "60s", "> 0", "a call longer than this is slow", true,
			func(c *breaker.Config) *time.Duration { return &c.SlowCallDuration }),
		durField("openFor", "60s", "> 0", "how long the breaker stays open before trial calls", true,
			func(c *breaker.Config) *time.Duration { return &c.OpenFor }),
		intField("halfOpenCalls", "10", "[1, 1000000]", "the trial calls admitted in half-open", 1,
			func(c *breaker.Config) *int { return &c.HalfOpenCalls }),
		durField("maxHalfOpenWait", "0 (wait for every trial)", ">= 0", "how long half-open may wait for its trial calls before opening again", false,
			func(c *breaker.Config) *time.Duration { return &c.MaxHalfOpenWait }),
	},
}

// WithBreakerDefaults sets what every circuit breaker of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithBreakerDefaults(configure func(*breaker.Config)) Option {
	return defaultsOption(func(r *Registry) *breakerStore { return r.breaker }, configure)
}

// WithBreakerConfig defines (or adds to) the named circuit breaker configuration name,
// used through Config.BaseConfig.
func WithBreakerConfig(name string, configure func(*breaker.Config)) Option {
	return configOption(func(r *Registry) *breakerStore { return r.breaker }, name, configure)
}

// Breaker returns the handle of the circuit breaker with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) Breaker(id string) (*breaker.Handle, error) {
	x, err := lookup(r, r.breaker, id)
	if err != nil {
		return nil, err
	}
	return x.Handle(), nil
}

// Breaker resolves the circuit breaker of a pipeline called pipeline; see
// [Tx.AdaptiveLimit].
func (tx *Tx) Breaker(pipeline string, configure func(*breaker.Config)) (*breaker.Breaker, error) {
	x, _, err := resolveIn(tx, tx.r.breaker, pipeline, configure)
	return x, err
}
