package r4c

import (
	"time"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

type adaptiveStore = store[adaptivelimit.Config, *adaptivelimit.Limiter]

var adaptiveKind = &kind[adaptivelimit.Config, *adaptivelimit.Limiter]{
	key:      "adaptiveLimit",
	defaults: adaptivelimit.Config.WithDefaults,
	validate: adaptivelimit.Config.Validate,
	build:    adaptivelimit.New,
	names:    func(c *adaptivelimit.Config) (*string, *string) { return &c.Name, &c.BaseConfig },
	fields: []field[adaptivelimit.Config]{
		enabledField(func(c *adaptivelimit.Config) *bool { return &c.Disabled }),
		choiceField("algorithm", "gradient2", "how the limit is recomputed at the end of each window",
			map[string]adaptivelimit.Algorithm{"gradient2": adaptivelimit.Gradient2, "aimd": adaptivelimit.AIMD, "vegas": adaptivelimit.Vegas, "little": adaptivelimit.Little},
			func(c *adaptivelimit.Config) *adaptivelimit.Algorithm { return &c.Algorithm }),
		intField("initialLimit", "20 (moved into [minLimit, maxLimit] if unset)", ">= 1, within [minLimit, maxLimit]", "the limit before the first window ends", 1,
			func(c *adaptivelimit.Config) *int { return &c.InitialLimit }),
		intField("minLimit", "1", ">= 1, <= maxLimit", "the lowest the limit goes", 1,
			func(c *adaptivelimit.Config) *int { return &c.MinLimit }),
		intField("maxLimit", "200 (raised to minLimit if unset)", ">= 1, >= minLimit, <= 2^30", "the highest the limit goes", 1,
			func(c *adaptivelimit.Config) *int { return &c.MaxLimit }),
		durField("window", "1s", "[1ms, 1h]", "the shortest duration of a window", true,
			func(c *adaptivelimit.Config) *time.Duration { return &c.Window }),
		intField("minWindowSamples", "10", ">= 1", "the fewest samples a window needs to end", 1,
			func(c *adaptivelimit.Config) *int { return &c.MinWindowSamples }),
		floatField("smoothing", "0.2 (vegas: 1.0)", "(0, 1]", "how far each window moves the limit towards its target (gradient2, vegas)",
			func(f float64) string { return ruleIf(!(f > 0 && f <= 1), "must be in (0, 1]") },
			func(c *adaptivelimit.Config) *float64 { return &c.Smoothing }),
		floatField("rttTolerance", "1.5", ">= 1", "how much above the long-term latency a window may be before gradient2 lowers the limit",
			func(f float64) string { return ruleIf(!(f >= 1), "must be at least 1") },
			func(c *adaptivelimit.Config) *float64 { return &c.RTTTolerance }),
		intField("longWindow", "600", ">= 1", "the number of windows gradient2's long-term latency spans", 1,
			func(c *adaptivelimit.Config) *int { return &c.LongWindow }),
		intField("queueSize", "4", ">= 1", "what gradient2 adds to the limit each window", 1,
			func(c *adaptivelimit.Config) *int { return &c.QueueSize }),
		floatField("backoffRatio", "0.9", "[0.5, 1)", "what aimd multiplies the limit by after a window with a drop",
			func(f float64) string { return ruleIf(!(f >= 0.5 && f < 1), "must be in [0.5, 1)") },
			func(c *adaptivelimit.Config) *float64 { return &c.BackoffRatio }),
		intField("probeMultiplier", "30", ">= 1", "vegas re-measures its no-load latency every probeMultiplier*limit windows", 1,
			func(c *adaptivelimit.Config) *int { return &c.ProbeMultiplier }),
		durField("maxWait", "0 (fail fast)", ">= 0", "how long a call may wait for a slot", false,
			func(c *adaptivelimit.Config) *time.Duration { return &c.MaxWait }),
		floatField("lowPriorityShare", "0.8", "(0, 1]", "low-priority calls are admitted only while fewer than this share of the limit are in flight",
			func(f float64) string { return ruleIf(!(f > 0 && f <= 1), "must be in (0, 1]") },
			func(c *adaptivelimit.Config) *float64 { return &c.LowPriorityShare }),
		durField("latencyCeiling", "0 (off)", ">= 0", "a window whose latency passes it counts as overload", false,
			func(c *adaptivelimit.Config) *time.Duration { return &c.LatencyCeiling }),
	},
}

func ruleIf(bad bool, rule string) string {
	if bad {
		return rule
	}
	return ""
}

// WithAdaptiveLimitDefaults sets what every adaptive limit of the registry
// starts from, above the built-in defaults. configure gets a zero Config and
// sets what it wants: the fields it leaves zero are not set at this level.
// An invalid value makes NewRegistry fail with R4C-REG-001.
func WithAdaptiveLimitDefaults(configure func(*adaptivelimit.Config)) Option {
	return defaultsOption(func(r *Registry) *adaptiveStore { return r.adaptive }, configure)
}

// WithAdaptiveLimitConfig defines (or adds to) the named configuration
// name, which an adaptive limit uses through its Config.BaseConfig.
func WithAdaptiveLimitConfig(name string, configure func(*adaptivelimit.Config)) Option {
	return configOption(func(r *Registry) *adaptiveStore { return r.adaptive }, name, configure)
}

// AdaptiveLimit returns the handle of the adaptive limit with this id (the
// pipeline's name, or the Config.Name it was given). An unknown id is an
// R4C-REG-009 error.
func (r *Registry) AdaptiveLimit(id string) (*adaptivelimit.Handle, error) {
	l, err := lookup(r, r.adaptive, id)
	if err != nil {
		return nil, err
	}
	return l.Handle(), nil
}

// AdaptiveLimit resolves the adaptive limit for a pipeline called pipeline,
// configured by configure (which may be nil), and returns its core: a new
// instance staged in the transaction, or the existing one with the same id
// (R4C-REG-008 if its configuration differs).
func (tx *Tx) AdaptiveLimit(pipeline string, configure func(*adaptivelimit.Config)) (*adaptivelimit.Limiter, error) {
	l, _, err := resolveIn(tx, tx.r.adaptive, pipeline, configure)
	return l, err
}
