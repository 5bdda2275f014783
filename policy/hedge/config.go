package hedge

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// The built-in defaults and bounds of a [Config].
const (
	// DefaultDelay is how long a hedge waits for an attempt before it
	// starts another when Config.Delay is not set.
	DefaultDelay = time.Second
	// DefaultMaxHedged is how many extra attempts a call may start when
	// Config.MaxHedged is not set.
	DefaultMaxHedged = 1
	// MaxMaxHedged is the largest valid Config.MaxHedged: past a handful of
	// extra attempts a hedge only multiplies the load on a dependency that
	// is slow already.
	MaxMaxHedged = 10
)

// Config configures a hedge. It is plain data; the zero value of every
// field means "not set here": the registry fills it from the layer below,
// and [Config.WithDefaults] from the default given on each field. To set a
// field back to zero over a lower layer, use [Config.SetZero] (or
// [Config.Enable] for Disabled).
type Config struct {
	// Name shares one hedge (and its figures) between pipelines: every
	// pipeline that gives the same Name uses the same instance. Default:
	// the pipeline's name. The core ignores it.
	Name string
	// BaseConfig starts from a named configuration of the registry. The
	// core ignores it.
	BaseConfig string
	// Disabled makes the hedge run every call once, on the caller's
	// goroutine, as if it were not there (flat key enabled=false).
	Disabled bool
	// Delay is how long the hedge waits for a result before it starts
	// another attempt, and then the next one. Set it near the latency
	// percentile you want to cut (the 90th or 95th): a shorter delay hedges
	// more calls and adds more load. Must be positive. Default 1s
	// ([DefaultDelay]). Flat key delay.
	Delay time.Duration
	// MaxHedged is how many attempts a call may start beyond the first, in
	// [1, 10]. Default 1 ([DefaultMaxHedged]). Flat key maxHedged.
	MaxHedged int

	// zero records the keys set to zero on purpose (SetZero, Enable).
	zero policy.ZeroSet
}

// WithDefaults returns c with every field that is not set filled with its
// built-in default. The keys given to [Config.SetZero] stay zero.
func (c Config) WithDefaults() Config {
	if c.Delay == 0 && !c.zero.Has("delay") {
		c.Delay = DefaultDelay
	}
	if c.MaxHedged == 0 && !c.zero.Has("maxHedged") {
		c.MaxHedged = DefaultMaxHedged
	}
	return c
}

// Validate checks a defaulted configuration and returns the first rule it
// breaks as a [*policy.FieldError]: a Delay that is not positive
// ([policy.ClassDuration]), a MaxHedged below 1 ([policy.ClassBound]) or
// above [MaxMaxHedged] ([policy.ClassRange]). It returns nil for a valid
// configuration. Validate checks a Disabled configuration too. A name
// given to [Config.SetZero] that is no key, or is enabled, is a
// [*policy.ZeroError].
func (c Config) Validate() error {
	if err := keys.CheckZeroes(&c); err != nil {
		return err
	}
	if c.Delay <= 0 {
		return &policy.FieldError{Key: "delay", Value: policy.Dur(c.Delay), Rule: "must be positive", Class: policy.ClassDuration}
	}
	if c.MaxHedged < 1 {
		return &policy.FieldError{Key: "maxHedged", Value: policy.Int(c.MaxHedged), Rule: "must be at least 1", Class: policy.ClassBound}
	}
	if c.MaxHedged > MaxMaxHedged {
		return &policy.FieldError{Key: "maxHedged", Value: policy.Int(c.MaxHedged), Rule: "must be at most 10", Class: policy.ClassRange}
	}
	return nil
}
