package timeout

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// keys is the timeout's configuration table.
var keys = policy.NewTable(
	func(c *Config) *string { return &c.Name },
	func(c *Config) *string { return &c.BaseConfig },
	func(c *Config) *policy.ZeroSet { return &c.zero },
	[]policy.Key[Config]{
		policy.EnabledKey("false lets every call pass untouched: no deadline, no goroutine", func(c *Config) *bool { return &c.Disabled }),
		policy.DurationKey("timeout", DefaultTimeout, "> 0", "how long a call may run before the caller gets a CallTimeoutError",
			func(c *Config) *time.Duration { return &c.Timeout }).LiveFrom("the next call: a call in flight keeps its deadline"),
		policy.BoolKey("cooperative", false, "run the call on the caller's goroutine and rely on it honouring its ctx",
			func(c *Config) *bool { return &c.Cooperative }),
	},
)

// Keys returns the table of a timeout's flat keys: for each, its name (as
// in defaults.timeout.<name>), type, default, valid range and meaning, and
// how its text is read into a [Config]. The registry reads external
// configuration through it and docs/configuration.md is generated from it.
// The table is shared and immutable.
func Keys() *policy.Table[Config] { return keys }

// SetZero sets each key named (flat-key names as in [Keys], such as
// "cooperative") to its zero value at this layer, over what a lower layer
// set; see adaptivelimit.Config.SetZero for the rules, which are the same
// for every policy. "enabled" is refused: use [Config.Enable].
func (c *Config) SetZero(names ...string) { keys.SetZero(c, names...) }

// Enable sets Disabled to false at this layer, over a lower layer that
// disabled the timeout: what the key enabled=true does from outside.
func (c *Config) Enable() { keys.Enable(c) }
