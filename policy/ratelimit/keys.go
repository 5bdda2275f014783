package ratelimit

import (
	"context"
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
		policy.DurationKey("storeTimeout", DefaultStoreTimeout, "> 0", "with a store: how long one store call may take before the call is decided by the fallback",
			func(c *Config) *time.Duration { return &c.StoreTimeout }),
		policy.TextKey("fallback", FallbackLocal, "", "with a store: what decides calls while the store fails",
			func(c *Config) *Fallback { return &c.Fallback }, FallbackLocal, FallbackOpen, FallbackClosed),
		policy.FloatKey("fallbackShare", DefaultFallbackShare, "(0, 1], a fraction: 20 % is 0.2", "with a store: the share of limit and burst the local fallback grants each process",
			func(c *Config) *float64 { return &c.FallbackShare }),
		policy.DurationKey("probeInterval", DefaultProbeInterval, "> 0", "with a store: how often one call asks a failing store again",
			func(c *Config) *time.Duration { return &c.ProbeInterval }),
		policy.IntKey("lease", DefaultLease, ">= 1", "with a store: permits asked per round trip and spent locally",
			func(c *Config) *int { return &c.Lease }).Note("a round trip per permit"),
		policy.DurationKey("leaseFor", DefaultLeaseFor, "> 0", "with a store: how long leased permits may be spent before they are dropped",
			func(c *Config) *time.Duration { return &c.LeaseFor }),
	},
	policy.CodeOnly("Store", func(c *Config) *Store { return &c.Store }),
	policy.CodeOnly("QuotaKey", func(c *Config) *func(context.Context) string { return &c.QuotaKey }),
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
