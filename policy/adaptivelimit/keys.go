package adaptivelimit

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// keys is the adaptive limit's configuration table. A new Config field
// gets a line here: a key if it can be set from outside, a code-only field
// otherwise (TestKeysCoverEveryField fails until it has one).
var keys = policy.NewTable(
	func(c *Config) *string { return &c.Name },
	func(c *Config) *string { return &c.BaseConfig },
	func(c *Config) *policy.ZeroSet { return &c.zero },
	[]policy.Key[Config]{
		policy.EnabledKey("false lets every call pass without measuring anything",
			func(c *Config) *bool { return &c.Disabled }),
		policy.TextKey("algorithm", Gradient2, "", "how the limit is recomputed at the end of each window",
			func(c *Config) *Algorithm { return &c.Algorithm }, Gradient2, AIMD, Vegas, Little),
		policy.IntKey("initialLimit", DefaultInitialLimit, ">= 1, within [minLimit, maxLimit]", "the limit before the first window ends",
			func(c *Config) *int { return &c.InitialLimit }).Note("moved into [minLimit, maxLimit] if unset").LiveFrom("a limit built later; a running limit only moves within its bounds"),
		policy.IntKey("minLimit", DefaultMinLimit, ">= 1, <= maxLimit", "the lowest the limit goes",
			func(c *Config) *int { return &c.MinLimit }).LiveFrom("now: a limit below it is raised to it"),
		policy.IntKey("maxLimit", DefaultMaxLimit, ">= 1, >= minLimit, <= 2^30", "the highest the limit goes",
			func(c *Config) *int { return &c.MaxLimit }).Note("raised to minLimit if unset").LiveFrom("now: a limit above it is lowered to it; calls in flight finish"),
		policy.DurationKey("window", DefaultWindow, "[1ms, 1h]", "the shortest duration of a window",
			func(c *Config) *time.Duration { return &c.Window }).LiveFrom("the next window"),
		policy.IntKey("minWindowSamples", DefaultMinWindowSamples, ">= 1", "the fewest samples a window needs to end",
			func(c *Config) *int { return &c.MinWindowSamples }).LiveFrom("the next window end"),
		policy.FloatKey("smoothing", DefaultSmoothing, "(0, 1]", "how far each window moves the limit towards its target (gradient2, vegas)",
			func(c *Config) *float64 { return &c.Smoothing }).Note("vegas: 1").LiveFrom("the next window end"),
		policy.FloatKey("rttTolerance", DefaultRTTTolerance, ">= 1", "how much above the long-term latency a window may be before gradient2 lowers the limit",
			func(c *Config) *float64 { return &c.RTTTolerance }).LiveFrom("the next window end"),
		policy.IntKey("longWindow", DefaultLongWindow, ">= 1", "the number of windows gradient2's long-term latency spans",
			func(c *Config) *int { return &c.LongWindow }).LiveFrom("the next window end"),
		policy.IntKey("queueSize", DefaultQueueSize, ">= 1", "what gradient2 adds to the limit each window",
			func(c *Config) *int { return &c.QueueSize }).LiveFrom("the next window end"),
		policy.FloatKey("backoffRatio", DefaultBackoffRatio, "[0.5, 1)", "what aimd multiplies the limit by after a window with a drop",
			func(c *Config) *float64 { return &c.BackoffRatio }).LiveFrom("the next window end"),
		policy.IntKey("probeMultiplier", DefaultProbeMultiplier, ">= 1", "vegas re-measures its no-load latency every probeMultiplier*limit windows",
			func(c *Config) *int { return &c.ProbeMultiplier }).LiveFrom("the next window end"),
		policy.DurationKey("maxWait", 0, ">= 0", "how long a call may wait for a slot",
			func(c *Config) *time.Duration { return &c.MaxWait }).Note("fail fast"),
		policy.FloatKey("lowPriorityShare", DefaultLowPriorityShare, "(0, 1], a fraction",
			"low-priority calls are admitted only while fewer than this share of the limit are in flight",
			func(c *Config) *float64 { return &c.LowPriorityShare }).LiveFrom("now: the next call admitted"),
		policy.DurationKey("latencyCeiling", 0, ">= 0", "a window whose latency passes it counts as overload",
			func(c *Config) *time.Duration { return &c.LatencyCeiling }).Note("off").LiveFrom("the next window end"),
	},
	policy.CodeOnly("DropOn", func(c *Config) *[]error { return &c.DropOn }),
	policy.CodeOnly("DropIf", func(c *Config) *func(error) bool { return &c.DropIf }),
)

// Keys returns the table of an adaptive limit's flat keys: for each, its
// name (as in defaults.adaptiveLimit.<name>), type, default, valid range
// and meaning, and how its text is read into a [Config]; and the fields
// only code sets (DropOn, DropIf). The registry reads external
// configuration through it and docs/configuration.md is generated from it.
// The table is shared and immutable.
func Keys() *policy.Table[Config] { return keys }

// SetZero sets each key named (flat-key names as in [Keys], such as
// "maxWait" or "latencyCeiling") to its zero value at this layer, over what
// a lower layer set: in a builder closure over the registry's defaults and
// named configuration, in a named configuration over the defaults. Without
// it a zero field means "not set here". The fields are zeroed at once; a
// value assigned after SetZero wins. [Config.WithDefaults] leaves such a
// key at zero, so a key whose zero is not valid (maxLimit) fails
// validation. "enabled" is refused (use [Config.Enable]): a refused or
// unknown name makes [Config.Validate], [New] and the registry fail.
func (c *Config) SetZero(names ...string) { keys.SetZero(c, names...) }

// Enable sets Disabled to false at this layer, over a lower layer that
// disabled the adaptive limit: what the key enabled=true does from outside.
func (c *Config) Enable() { keys.Enable(c) }
