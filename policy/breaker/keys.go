package breaker

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// keys is the circuit breaker's configuration table.
var keys = policy.NewTable(
	func(c *Config) *string { return &c.Name },
	func(c *Config) *string { return &c.BaseConfig },
	func(c *Config) *policy.ZeroSet { return &c.zero },
	[]policy.Key[Config]{
		policy.EnabledKey("false starts the breaker disabled: it admits every call and records nothing",
			func(c *Config) *bool { return &c.Disabled }),
		policy.TextKey("windowType", CountBased, "count-based or time-based (also COUNT_BASED, TIME_BASED, count, time)",
			"how the sliding window is kept", func(c *Config) *WindowType { return &c.WindowType }, CountBased, TimeBased),
		policy.IntKey("windowSize", DefaultWindowSize, "[1, 1000000]", "the calls a count-based window holds",
			func(c *Config) *int { return &c.WindowSize }),
		policy.DurationKey("windowDuration", DefaultWindowDuration, "[1ms, 24h]", "the span of a time-based window",
			func(c *Config) *time.Duration { return &c.WindowDuration }),
		policy.IntKey("minimumCalls", DefaultMinimumCalls, ">= 1", "the calls the window needs before rates count",
			func(c *Config) *int { return &c.MinimumCalls }).LiveFrom("the next evaluation"),
		policy.FloatKey("failureRateThreshold", DefaultFailureRateThreshold, "(0, 1], a fraction: 50 % is 0.5",
			"the fraction of failed calls that opens the breaker", func(c *Config) *float64 { return &c.FailureRateThreshold }).LiveFrom("the next evaluation"),
		policy.FloatKey("slowCallRateThreshold", DefaultSlowCallRateThreshold, "(0, 1], a fraction: 50 % is 0.5",
			"the fraction of slow calls that opens the breaker", func(c *Config) *float64 { return &c.SlowCallRateThreshold }).LiveFrom("the next evaluation"),
		policy.DurationKey("slowCallDuration", DefaultSlowCallDuration, "> 0", "a call longer than this is slow",
			func(c *Config) *time.Duration { return &c.SlowCallDuration }).LiveFrom("the calls that end from then on"),
		policy.DurationKey("openFor", DefaultOpenFor, ">= 0", "how long the breaker stays open before trial calls",
			func(c *Config) *time.Duration { return &c.OpenFor }).LiveFrom("now, for the open stay in progress too"),
		policy.IntKey("halfOpenCalls", DefaultHalfOpenCalls, "[1, 1000000]", "the trial calls admitted in half-open",
			func(c *Config) *int { return &c.HalfOpenCalls }).LiveFrom("the next half-open stay"),
		policy.DurationKey("maxHalfOpenWait", 0, ">= 0", "how long half-open may wait for its trial calls before opening again",
			func(c *Config) *time.Duration { return &c.MaxHalfOpenWait }).Note("wait for every trial").LiveFrom("the next call admitted"),
	},
	policy.CodeOnly("RecordOn", func(c *Config) *[]error { return &c.RecordOn }),
	policy.CodeOnly("RecordIf", func(c *Config) *func(error) bool { return &c.RecordIf }),
	policy.CodeOnly("IgnoreOn", func(c *Config) *[]error { return &c.IgnoreOn }),
	policy.CodeOnly("IgnoreIf", func(c *Config) *func(error) bool { return &c.IgnoreIf }),
)

// Keys returns the table of a circuit breaker's flat keys: for each, its
// name (as in defaults.breaker.<name>), type, default, valid range and
// meaning, and how its text is read into a [Config]; and the fields only
// code sets (RecordOn, RecordIf, IgnoreOn, IgnoreIf). The registry reads
// external configuration through it and docs/configuration.md is generated
// from it. The table is shared and immutable.
func Keys() *policy.Table[Config] { return keys }

// SetZero sets each key named (flat-key names as in [Keys], such as
// "maxHalfOpenWait") to its zero value at this layer, over what a lower
// layer set; see adaptivelimit.Config.SetZero for the rules, which are the
// same for every policy. "enabled" is refused: use [Config.Enable].
func (c *Config) SetZero(names ...string) { keys.SetZero(c, names...) }

// Enable sets Disabled to false at this layer, over a lower layer that
// disabled the breaker: what the key enabled=true does from outside.
func (c *Config) Enable() { keys.Enable(c) }
