package bulkhead

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// DefaultMaxConcurrent is the MaxConcurrent of a Config that sets none.
const DefaultMaxConcurrent = 25

// Config configures a [Bulkhead]. It is plain data. The zero value of every
// field means "not set here": the registry fills it from the layer below,
// and [Config.WithDefaults] from the defaults given on each field. To set a
// field back to zero over a lower layer, use [Config.SetZero] (or
// [Config.Enable] for Disabled).
type Config struct {
	// Name shares one instance between pipelines: every pipeline that gives
	// the same Name uses the same bulkhead, which must resolve to the same
	// configuration. Default: the pipeline's name. New ignores it.
	Name string
	// BaseConfig starts from a named configuration of the registry. New
	// ignores it.
	BaseConfig string
	// Disabled lets every call pass without taking a slot (flat key
	// enabled=false). Default false.
	Disabled bool
	// MaxConcurrent is how many calls may hold a slot at the same time; at
	// least 1. Default 25 (flat key maxConcurrent).
	MaxConcurrent int
	// MaxWait is how long a call may wait for a slot when every slot is
	// taken; it must not be negative. Default 0: fail fast with
	// [*BulkheadFullError] (flat key maxWait).
	MaxWait time.Duration

	// zero records the keys set to zero on purpose (SetZero, Enable).
	zero policy.ZeroSet
}

// WithDefaults returns c with every field that is not set filled with its
// built-in default. The keys given to [Config.SetZero] stay zero.
func (c Config) WithDefaults() Config {
	if c.MaxConcurrent == 0 && !c.zero.Has("maxConcurrent") {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
	return c
}

// Validate checks a defaulted configuration and returns the first violation
// as a [*policy.FieldError] (nil if there is none): a MaxConcurrent below 1
// is a [policy.ClassBound] violation of "maxConcurrent", a negative MaxWait
// a [policy.ClassDuration] violation of "maxWait". A name given to
// [Config.SetZero] that is no key, or is enabled, is a [*policy.ZeroError].
func (c Config) Validate() error {
	if err := keys.CheckZeroes(&c); err != nil {
		return err
	}
	if c.MaxConcurrent < 1 {
		return &policy.FieldError{Key: "maxConcurrent", Value: policy.Int(c.MaxConcurrent), Rule: "must be at least 1", Class: policy.ClassBound}
	}
	if c.MaxWait < 0 {
		return &policy.FieldError{Key: "maxWait", Value: policy.Dur(c.MaxWait), Rule: "must not be negative", Class: policy.ClassDuration}
	}
	return nil
}
