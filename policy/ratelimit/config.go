package ratelimit

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// The defaults of a Config that sets nothing: 50 permits per second, all of
// them available at once.
const (
	DefaultLimit  = 50
	DefaultPeriod = time.Second
)

// Config configures a [Limiter]. It is plain data. The zero value of every
// field means "not set here": the registry fills it from the layer below,
// and [Config.WithDefaults] from the defaults given on each field. To set a
// field back to zero over a lower layer, use [Config.SetZero] (or
// [Config.Enable] for Disabled).
type Config struct {
	// Name shares one instance between pipelines: every pipeline that gives
	// the same Name uses the same limiter, which must resolve to the same
	// configuration. Default: the pipeline's name. New ignores it.
	Name string
	// BaseConfig starts from a named configuration of the registry. New
	// ignores it.
	BaseConfig string
	// Disabled lets every call pass without taking a permit (flat key
	// enabled=false). Default false.
	Disabled bool
	// Limit is how many permits come free per Period; at least 1. Permits
	// come one at a time, evenly spaced, every Period/Limit. Default 50
	// (flat key limit).
	Limit int
	// Period is the span of time Limit is counted over; it must be
	// positive. Default 1s (flat key period).
	Period time.Duration
	// Burst is the most permits that can be taken at once after a quiet
	// spell (the size of the bucket); at least 1. Default: Limit (flat key
	// burst).
	Burst int
	// MaxWait is how long a call may wait for its permit; it must not be
	// negative. Default 0: reject at once with [*RateLimitedError] (flat key
	// maxWait).
	MaxWait time.Duration

	// zero records the keys set to zero on purpose (SetZero, Enable).
	zero policy.ZeroSet
}

// WithDefaults returns c with every field that is not set filled with its
// built-in default. Burst defaults to the (defaulted) Limit. The keys given
// to [Config.SetZero] stay zero.
func (c Config) WithDefaults() Config {
	if c.Limit == 0 && !c.zero.Has("limit") {
		c.Limit = DefaultLimit
	}
	if c.Period == 0 && !c.zero.Has("period") {
		c.Period = DefaultPeriod
	}
	if c.Burst == 0 && !c.zero.Has("burst") {
		c.Burst = c.Limit
	}
	return c
}

// Validate checks a defaulted configuration and returns the first violation
// as a [*policy.FieldError] (nil if there is none):
//   - limit below 1, burst below 1: [policy.ClassBound];
//   - period not positive, maxWait negative: [policy.ClassDuration];
//   - limit above period in nanoseconds (permits closer than 1ns apart), or
//     a burst whose span, burst * period/limit, is above 2^62ns (about 146
//     years):
//     [policy.ClassCombination];
//   - period/limit above 2^62ns (one permit in more than 146 years):
//     [policy.ClassRange] on period;
//   - a name given to [Config.SetZero] that is no key, or is enabled: a
//     [*policy.ZeroError].
func (c Config) Validate() error {
	if err := keys.CheckZeroes(&c); err != nil {
		return err
	}
	if c.Limit < 1 {
		return &policy.FieldError{Key: "limit", Value: policy.Int(c.Limit), Rule: "must be at least 1", Class: policy.ClassBound}
	}
	if c.Period <= 0 {
		return &policy.FieldError{Key: "period", Value: policy.Dur(c.Period), Rule: "must be positive", Class: policy.ClassDuration}
	}
	if c.Burst < 1 {
		return &policy.FieldError{Key: "burst", Value: policy.Int(c.Burst), Rule: "must be at least 1", Class: policy.ClassBound}
	}
	if c.MaxWait < 0 {
		return &policy.FieldError{Key: "maxWait", Value: policy.Dur(c.MaxWait), Rule: "must not be negative", Class: policy.ClassDuration}
	}
	if int64(c.Limit) > int64(c.Period) {
		return &policy.FieldError{Key: "limit", Value: policy.Int(c.Limit),
			Rule: "must not exceed period in nanoseconds (" + policy.Int(int(c.Period)) + "): at most one permit per nanosecond", Class: policy.ClassCombination}
	}
	interval := int64(c.Period) / int64(c.Limit)
	if interval > maxSpan {
		return &policy.FieldError{Key: "period", Value: policy.Dur(c.Period),
			Rule: "is too long for limit " + policy.Int(c.Limit) + ": period/limit must be at most " + time.Duration(maxSpan).String() + " (2^62ns)", Class: policy.ClassRange}
	}
	if int64(c.Burst) > maxSpan/interval {
		return &policy.FieldError{Key: "burst", Value: policy.Int(c.Burst),
			Rule: "is too large for period/limit: burst * period/limit must be at most " + time.Duration(maxSpan).String() + " (2^62ns)", Class: policy.ClassCombination}
	}
	return nil
}

// maxSpan is the longest time, in nanoseconds, that the permits of a full
// bucket may span (Burst * Period/Limit): 2^62ns, about 146 years. The
// limiter keeps times as int64 clock readings; this bound leaves the clock
// as much room again to run before a reading plus a span could overflow.
const maxSpan = 1 << 62
