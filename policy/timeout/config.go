package timeout

import (
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// DefaultTimeout is the timeout of a Config that sets none.
const DefaultTimeout = time.Second

// Config configures a [Timeout]. It is plain data. The zero value of every
// field means "not set here": the registry fills it from the layer below,
// and [Config.WithDefaults] from the defaults given on each field. To set a
// field back to zero over a lower layer, use [Config.SetZero] (or
// [Config.Enable] for Disabled).
type Config struct {
	// Name shares one instance between pipelines: every pipeline that gives
	// the same Name uses the same timeout, which must resolve to the same
	// configuration. Default: the pipeline's name. New ignores it.
	Name string
	// BaseConfig starts from a named configuration of the registry. New
	// ignores it.
	BaseConfig string
	// Disabled lets every call pass untouched: no deadline, no goroutine
	// (flat key enabled=false). Default false.
	Disabled bool
	// Timeout is how long a call may run before the caller gets a
	// [*CallTimeoutError]. It must be positive. Default 1s (flat key
	// timeout).
	Timeout time.Duration
	// Cooperative runs the call on the caller's goroutine and trusts it to
	// return once its ctx is done; the caller then waits for it. Use it for
	// functions that honour their ctx (HTTP and gRPC clients do) to save a
	// goroutine per call. Default false: the call runs on a goroutine of
	// its own and the caller gets the timeout at the deadline even if the
	// function ignores its ctx (flat key cooperative).
	Cooperative bool

	// zero records the keys set to zero on purpose (SetZero, Enable).
	zero policy.ZeroSet
}

// WithDefaults returns c with every field that is not set filled with its
// built-in default. The keys given to [Config.SetZero] stay zero.
func (c Config) WithDefaults() Config {
	if c.Timeout == 0 && !c.zero.Has("timeout") {
		c.Timeout = DefaultTimeout
	}
	return c
}

// Validate checks a defaulted configuration and returns the first violation
// as a [*policy.FieldError] (nil if there is none). A Timeout that is not
// positive breaks a [policy.ClassDuration] rule under the key "timeout". A
// name given to [Config.SetZero] that is no key, or is enabled, is a
// [*policy.ZeroError].
func (c Config) Validate() error {
	if err := keys.CheckZeroes(&c); err != nil {
		return err
	}
	if c.Timeout <= 0 {
		return &policy.FieldError{Key: "timeout", Value: policy.Dur(c.Timeout), Rule: "must be positive", Class: policy.ClassDuration}
	}
	return nil
}
