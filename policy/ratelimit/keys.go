package ratelimit

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// keys is the rate limiter's configuration table.
var keys = policy.NewTable(
	func(c *Config) *string { return &c.Name },
	func(c *Config) *string { return &c.BaseConfig },
	func(c *Config) *policy.ZeroSet { return &c.zero },
	[]policy.Key[Config]{
		policy.EnabledKey("false lets every call pass without taking a permit", func(c *Config) *bool { return &c.Disabled }),
		policy.IntKey("limit", DefaultLimit, ">= 1, at most one per nanosecond of period", "permits per period",
			func(c *Config) *int { return &c.Limit }).LiveFrom("the next permit"),
		policy.DurationKey("period", DefaultPeriod, "> 0, period/limit at most 2^62ns (about 146 years)", "the period the limit is counted over",
			func(c *Config) *time.Duration { return &c.Period }).LiveFrom("the next permit"),
		policy.IntKey("burst", 0, ">= 1, burst × period/limit at most 2^62ns", "how many permits may be taken at once after a quiet spell",
			func(c *Config) *int { return &c.Burst }).Derived("limit").LiveFrom("now: the permits free stay free, up to the new burst"),
		policy.DurationKey("maxWait", 0, ">= 0", "how long a call may wait for a permit",
			func(c *Config) *time.Duration { return &c.MaxWait }).Note("reject at once").LiveFrom("the next call that waits"),
	},
)

// Keys returns the table of a rate limiter's flat keys: for each, its name
// (as in defaults.rateLimit.<name>), type, default, valid range and
// meaning, and how its text is read into a [Config]. The registry reads
// external configuration through it and docs/configuration.md is generated
// from it. The table is shared and immutable.
func Keys() *policy.Table[Config] { return keys }

// SetZero sets each key named (flat-key names as in [Keys], such as
// "maxWait") to its zero value at this layer, over what a lower layer set;
// see adaptivelimit.Config.SetZero for the rules, which are the same for
// every policy. "enabled" is refused: use [Config.Enable].
func (c *Config) SetZero(names ...string) { keys.SetZero(c, names...) }

// Enable sets Disabled to false at this layer, over a lower layer that
// disabled the rate limiter: what the key enabled=true does from outside.
func (c *Config) Enable() { keys.Enable(c) }
