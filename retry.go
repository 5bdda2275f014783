package r4c

import (
	"time"

	"github.com/resilience4cata/r4c/policy/retry"
)

type retryStore = store[retry.Config, *retry.Retry]

var retryKind = &kind[retry.Config, *retry.Retry]{
	key:      "retry",
	aliases:  []string{},
	defaults: retry.Config.WithDefaults,
	validate: retry.Config.Validate,
	build:    retry.New,
	names:    func(c *retry.Config) (*string, *string) { return &c.Name, &c.BaseConfig },
	fields: []field[retry.Config]{
		enabledField(func(c *retry.Config) *bool { return &c.Disabled }),
		intField("maxAttempts", "3", ">= 1", "attempts in all, the first included", 1,
			func(c *retry.Config) *int { return &c.MaxAttempts }),
		durField("wait", "500ms", ">= 0", "the wait before the first retry", false,
			func(c *retry.Config) *time.Duration { return &c.Wait }),
		floatField("multiplier", "1 (constant wait)", ">= 1", "each wait is the previous one times this",
			func(f float64) string { return ruleIf(!(f >= 1), "must be at least 1") },
			func(c *retry.Config) *float64 { return &c.Multiplier }),
		durField("maxDelay", "0 (no cap)", ">= wait, or 0", "the cap on a wait", false,
			func(c *retry.Config) *time.Duration { return &c.MaxDelay }),
		choiceField("jitter", "none", "how waits are randomised",
			map[string]retry.Jitter{"none": retry.JitterNone, "full": retry.JitterFull, "decorrelated": retry.JitterDecorrelated},
			func(c *retry.Config) *retry.Jitter { return &c.Jitter }),
		floatField("budgetRatio", "0 (no budget)", "[0, 1]", "retries may add at most this fraction of the calls of the budget window",
			func(f float64) string { return ruleIf(!(f >= 0 && f <= 1), "must be between 0 and 1") },
			func(c *retry.Config) *float64 { return &c.BudgetRatio }),
		durField("budgetWindow", "10s", "[1ms, 24h]", "the window the retry budget is counted over", true,
			func(c *retry.Config) *time.Duration { return &c.BudgetWindow }),
		intField("budgetMinRetries", "10", ">= 1", "retries the budget allows per window whatever the ratio", 1,
			func(c *retry.Config) *int { return &c.BudgetMinRetries }),
	},
}

// WithRetryDefaults sets what every retry of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithRetryDefaults(configure func(*retry.Config)) Option {
	return defaultsOption(func(r *Registry) *retryStore { return r.retry }, configure)
}

// WithRetryConfig defines (or adds to) the named retry configuration name,
// used through Config.BaseConfig.
func WithRetryConfig(name string, configure func(*retry.Config)) Option {
	return configOption(func(r *Registry) *retryStore { return r.retry }, name, configure)
}

// Retry returns the handle of the retry with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) Retry(id string) (*retry.Handle, error) {
	x, err := lookup(r, r.retry, id)
	if err != nil {
		return nil, err
	}
	return x.Handle(), nil
}

// Retry resolves the retry of a pipeline called pipeline; see
// [Tx.AdaptiveLimit].
func (tx *Tx) Retry(pipeline string, configure func(*retry.Config)) (*retry.Retry, error) {
	x, _, err := resolveIn(tx, tx.r.retry, pipeline, configure)
	return x, err
}
