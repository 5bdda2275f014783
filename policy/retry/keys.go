package retry

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// keys is the retry's configuration table.
var keys = policy.NewTable(
	func(c *Config) *string { return &c.Name },
	func(c *Config) *string { return &c.BaseConfig },
	func(c *Config) *policy.ZeroSet { return &c.zero },
	[]policy.Key[Config]{
		policy.EnabledKey("false makes every call a single attempt", func(c *Config) *bool { return &c.Disabled }),
		policy.IntKey("maxAttempts", DefaultMaxAttempts, ">= 1", "attempts in all, the first included",
			func(c *Config) *int { return &c.MaxAttempts }).LiveFrom("the next decision to retry, for calls in progress too"),
		policy.DurationKey("wait", DefaultWait, ">= 0", "the wait before the first retry",
			func(c *Config) *time.Duration { return &c.Wait }).LiveFrom("the next wait"),
		policy.FloatKey("multiplier", DefaultMultiplier, ">= 1", "each wait is the previous one times this",
			func(c *Config) *float64 { return &c.Multiplier }).Note("constant wait").LiveFrom("the next wait"),
		policy.DurationKey("maxDelay", 0, ">= wait, or 0", "the cap on a wait",
			func(c *Config) *time.Duration { return &c.MaxDelay }).Note("no cap").LiveFrom("the next wait"),
		policy.TextKey("jitter", JitterNone, "", "how waits are randomised",
			func(c *Config) *Jitter { return &c.Jitter }, JitterNone, JitterFull, JitterDecorrelated).LiveFrom("the next wait"),
		policy.FloatKey("budgetRatio", 0, "[0, 1], a fraction: 20 % is 0.2",
			"retries may add at most this fraction of the calls of the budget window",
			func(c *Config) *float64 { return &c.BudgetRatio }).Note("no budget"),
		policy.DurationKey("budgetWindow", DefaultBudgetWindow, "[1ms, 24h]", "the window the retry budget is counted over",
			func(c *Config) *time.Duration { return &c.BudgetWindow }),
		policy.IntKey("budgetMinRetries", DefaultBudgetMinRetries, ">= 1", "retries the budget allows per window whatever the ratio",
			func(c *Config) *int { return &c.BudgetMinRetries }),
	},
	policy.CodeOnly("RetryOn", func(c *Config) *[]error { return &c.RetryOn }),
	policy.CodeOnly("RetryIf", func(c *Config) *func(error) bool { return &c.RetryIf }),
	policy.CodeOnly("AbortOn", func(c *Config) *[]error { return &c.AbortOn }),
	policy.CodeOnly("AbortIf", func(c *Config) *func(error) bool { return &c.AbortIf }),
	policy.CodeOnly("RetryIfResult", func(c *Config) *func(any) bool { return &c.RetryIfResult }),
	policy.CodeOnly("WaitFunc", func(c *Config) *func(error, int, time.Duration) time.Duration { return &c.WaitFunc }),
	policy.CodeOnly("Rand", func(c *Config) *func() float64 { return &c.Rand }),
)

// Keys returns the table of a retry's flat keys: for each, its name (as in
// defaults.retry.<name>), type, default, valid range and meaning, and how
// its text is read into a [Config]; and the fields only code sets (the
// error lists, predicates and Rand). The registry reads external
// configuration through it and docs/configuration.md is generated from it.
// The table is shared and immutable.
func Keys() *policy.Table[Config] { return keys }

// SetZero sets each key named (flat-key names as in [Keys], such as "wait")
// to its zero value at this layer, over what a lower layer set; see
// adaptivelimit.Config.SetZero for the rules, which are the same for every
// policy. SetZero("wait") retries without waiting. "enabled" is refused:
// use [Config.Enable].
func (c *Config) SetZero(names ...string) { keys.SetZero(c, names...) }

// Enable sets Disabled to false at this layer, over a lower layer that
// disabled the retry: what the key enabled=true does from outside.
func (c *Config) Enable() { keys.Enable(c) }
