package hedge

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// keys is the hedge's configuration table.
var keys = policy.NewTable(
	func(c *Config) *string { return &c.Name },
	func(c *Config) *string { return &c.BaseConfig },
	func(c *Config) *policy.ZeroSet { return &c.zero },
	[]policy.Key[Config]{
		policy.EnabledKey("false runs every call once, as if the hedge were not there", func(c *Config) *bool { return &c.Disabled }),
		policy.DurationKey("delay", DefaultDelay, "> 0", "how long to wait for a result before starting another attempt",
			func(c *Config) *time.Duration { return &c.Delay }),
		policy.IntKey("maxHedged", DefaultMaxHedged, "[1, 10]", "extra attempts at most",
			func(c *Config) *int { return &c.MaxHedged }),
	},
)

// Keys returns the table of a hedge's flat keys: for each, its name (as in
// defaults.hedge.<name>), type, default, valid range and meaning, and how
// its text is read into a [Config]. The registry reads external
// configuration through it and docs/configuration.md is generated from it.
// The table is shared and immutable.
func Keys() *policy.Table[Config] { return keys }

// SetZero sets each key named (flat-key names as in [Keys]) to its zero
// value at this layer, over what a lower layer set; see
// adaptivelimit.Config.SetZero for the rules, which are the same for every
// policy. Both of the hedge's keys refuse zero in Validate. "enabled" is
// refused: use [Config.Enable].
func (c *Config) SetZero(names ...string) { keys.SetZero(c, names...) }

// Enable sets Disabled to false at this layer, over a lower layer that
// disabled the hedge: what the key enabled=true does from outside.
func (c *Config) Enable() { keys.Enable(c) }
