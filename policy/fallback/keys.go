package fallback

import (
	"context"

	"github.com/resilience4cata/r4c/policy"
)

// keys is the fallback's configuration table: from outside a fallback can
// only be switched off; what it handles and returns is code.
var keys = policy.NewTable(
	func(c *Config) *string { return &c.Name },
	func(c *Config) *string { return &c.BaseConfig },
	func(c *Config) *policy.ZeroSet { return &c.zero },
	[]policy.Key[Config]{
		policy.EnabledKey("false lets every outcome pass unchanged", func(c *Config) *bool { return &c.Disabled }),
	},
	policy.CodeOnly("HandleOn", func(c *Config) *[]error { return &c.HandleOn }),
	policy.CodeOnly("HandleIf", func(c *Config) *func(error) bool { return &c.HandleIf }),
	policy.CodeOnly("Value", func(c *Config) *any { return &c.Value }),
	policy.CodeOnly("Func", func(c *Config) *func(context.Context, error) (any, error) { return &c.Func }),
)

// Keys returns the table of a fallback's flat keys (only "enabled") and of
// the fields only code sets (HandleOn, HandleIf, Value, Func). The registry
// reads external configuration through it and docs/configuration.md is
// generated from it. The table is shared and immutable.
func Keys() *policy.Table[Config] { return keys }

// SetZero records each key named for its zero value at this layer; see
// adaptivelimit.Config.SetZero for the rules, which are the same for every
// policy. A fallback's only key is "enabled", which SetZero refuses: use
// [Config.Enable].
func (c *Config) SetZero(names ...string) { keys.SetZero(c, names...) }

// Enable sets Disabled to false at this layer, over a lower layer that
// disabled the fallback: what the key enabled=true does from outside.
func (c *Config) Enable() { keys.Enable(c) }
