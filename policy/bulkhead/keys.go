package bulkhead

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// keys is the bulkhead's configuration table.
var keys = policy.NewTable(
	func(c *Config) *string { return &c.Name },
	func(c *Config) *string { return &c.BaseConfig },
	func(c *Config) *policy.ZeroSet { return &c.zero },
	[]policy.Key[Config]{
		policy.EnabledKey("false lets every call pass without taking a slot", func(c *Config) *bool { return &c.Disabled }),
		policy.IntKey("maxConcurrent", DefaultMaxConcurrent, ">= 1", "how many calls may run at once",
			func(c *Config) *int { return &c.MaxConcurrent }).LiveFrom("now: a lower size rejects new calls until enough have ended"),
		policy.DurationKey("maxWait", 0, ">= 0", "how long a call may wait, in FIFO order, for a free slot",
			func(c *Config) *time.Duration { return &c.MaxWait }).Note("fail fast"),
	},
)

// Keys returns the table of a bulkhead's flat keys: for each, its name (as
// in defaults.bulkhead.<name>), type, default, valid range and meaning,
// and how its text is read into a [Config]. The registry reads external
// configuration through it and docs/configuration.md is generated from it.
// The table is shared and immutable.
func Keys() *policy.Table[Config] { return keys }

// SetZero sets each key named (flat-key names as in [Keys], such as
// "maxWait") to its zero value at this layer, over what a lower layer set;
// see adaptivelimit.Config.SetZero for the rules, which are the same for
// every policy. "enabled" is refused: use [Config.Enable].
func (c *Config) SetZero(names ...string) { keys.SetZero(c, names...) }

// Enable sets Disabled to false at this layer, over a lower layer that
// disabled the bulkhead: what the key enabled=true does from outside.
func (c *Config) Enable() { keys.Enable(c) }
