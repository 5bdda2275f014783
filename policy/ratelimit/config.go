package ratelimit

import (
	"context"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// The defaults of a Config that sets nothing: 50 permits per second, all of
// them available at once.
const (
	DefaultLimit  = 50
	DefaultPeriod = time.Second
)

// The defaults of the settings that matter only with a [Store]: each store
// call may take 50ms before the limiter falls back to a local limiter at
// the whole rate, and asks the store again once a second while it fails.
const (
	DefaultStoreTimeout  = 50 * time.Millisecond
	DefaultFallbackShare = 1.0
	DefaultProbeInterval = time.Second
	DefaultLease         = 1
	DefaultLeaseFor      = time.Second
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

	// Store keeps the limit's state outside the process, so that every
	// replica that builds this instance (the same instance id, or the same
	// QuotaKey) draws from one quota; r4credis.New makes one on Redis. Set
	// only in code. Default nil: the state lives in the process, at no
	// round trip and no allocation, and the settings below do nothing.
	Store Store
	// QuotaKey, with a Store, names the quota a call draws from, read from
	// its ctx: calls whose keys differ have independent quotas of Limit per
	// Period each (per tenant, per caller). It must be safe for concurrent
	// use and quick. Calls without a ctx ([Limiter.Allow]) read it from
	// context.Background(). Set only in code; it needs a Store. Default
	// nil: one quota per instance.
	QuotaKey func(ctx context.Context) string
	// StoreTimeout bounds each call to the Store: a store that has not
	// answered by then has failed, and the call is decided by the Fallback.
	// It must be positive. Default 50ms (flat key storeTimeout).
	StoreTimeout time.Duration
	// Fallback is what the limiter does while its Store fails: decide
	// locally at FallbackShare of the rate (FallbackLocal, the default),
	// let every call through (FallbackOpen) or refuse every call
	// (FallbackClosed). Flat key fallback.
	Fallback Fallback
	// FallbackShare is the share of Limit and Burst the local fallback
	// grants each process, in (0, 1]: with N replicas sharing a limit, 1/N
	// keeps their sum within it while the store is away. Default 1: each
	// process alone holds the whole limit (flat key fallbackShare).
	FallbackShare float64
	// ProbeInterval is, while the Store fails, how often one call asks it
	// again (the others are decided by the Fallback without waiting); the
	// first answer in time ends the fallback. It must be positive. Default
	// 1s (flat key probeInterval).
	ProbeInterval time.Duration
	// Lease is how many permits a call asks the Store for at once when they
	// are free: the process spends the rest locally, without a round trip,
	// until they run out or LeaseFor has passed. A lease above 1 trades
	// accuracy for round trips: a leased permit is counted by the store
	// when it is leased and spent up to LeaseFor later, so in any span of
	// time the processes together may admit up to min(N × (Lease-1),
	// Limit/Period × LeaseFor) permits more than the limit allows, N being
	// the number of processes (docs/rate-limiter.md). At least 1; above
	// Burst it counts as Burst. Default 1: every permit is a round trip
	// (flat key lease).
	Lease int
	// LeaseFor is how long leased permits may be spent; those left then are
	// dropped (the store counted them: they are lost to every process). It
	// must be positive. Default 1s (flat key leaseFor).
	LeaseFor time.Duration

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
	if c.StoreTimeout == 0 && !c.zero.Has("storeTimeout") {
		c.StoreTimeout = DefaultStoreTimeout
	}
	if c.FallbackShare == 0 && !c.zero.Has("fallbackShare") {
		c.FallbackShare = DefaultFallbackShare
	}
	if c.ProbeInterval == 0 && !c.zero.Has("probeInterval") {
		c.ProbeInterval = DefaultProbeInterval
	}
	if c.Lease == 0 && !c.zero.Has("lease") {
		c.Lease = DefaultLease
	}
	if c.LeaseFor == 0 && !c.zero.Has("leaseFor") {
		c.LeaseFor = DefaultLeaseFor
	}
	return c
}

// Validate checks a defaulted configuration and returns the first violation
// as a [*policy.FieldError] (nil if there is none):
//   - limit below 1, burst below 1: [policy.ClassBound];
//   - period not positive, maxWait negative: [policy.ClassDuration];
//   - limit above period in nanoseconds (permits closer than 1ns apart), or
//     a burst whose span, burst * period/limit, is above 2^62ns (about 146
//     years): [policy.ClassCombination];
//   - period/limit above 2^62ns (one permit in more than 146 years):
//     [policy.ClassRange] on period;
//   - storeTimeout, probeInterval or leaseFor not positive:
//     [policy.ClassDuration];
//   - fallbackShare outside (0, 1], a fallback that is no mode:
//     [policy.ClassRange]; lease below 1: [policy.ClassBound];
//   - a QuotaKey without a Store: [policy.ClassCombination];
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
	return c.validateStore()
}

// validateStore checks the settings of a limiter with a [Store].
func (c Config) validateStore() error {
	switch {
	case c.StoreTimeout <= 0:
		return &policy.FieldError{Key: "storeTimeout", Value: policy.Dur(c.StoreTimeout), Rule: "must be positive", Class: policy.ClassDuration}
	case c.Fallback > FallbackClosed:
		return &policy.FieldError{Key: "fallback", Value: policy.Int(int(c.Fallback)), Rule: "must be local, open or closed", Class: policy.ClassRange}
	case !(c.FallbackShare > 0 && c.FallbackShare <= 1):
		return &policy.FieldError{Key: "fallbackShare", Value: policy.Float(c.FallbackShare), Rule: "must be a fraction in (0, 1]: 20 % is 0.2", Class: policy.ClassRange}
	case c.ProbeInterval <= 0:
		return &policy.FieldError{Key: "probeInterval", Value: policy.Dur(c.ProbeInterval), Rule: "must be positive", Class: policy.ClassDuration}
	case c.Lease < 1:
		return &policy.FieldError{Key: "lease", Value: policy.Int(c.Lease), Rule: "must be at least 1", Class: policy.ClassBound}
	case c.LeaseFor <= 0:
		return &policy.FieldError{Key: "leaseFor", Value: policy.Dur(c.LeaseFor), Rule: "must be positive", Class: policy.ClassDuration}
	case c.QuotaKey != nil && c.Store == nil:
		return &policy.FieldError{Key: "QuotaKey", Value: "func", Rule: "needs a Store: per-key quotas live in a store (r4credis)", Class: policy.ClassCombination}
	}
	return nil
}

// maxSpan is the longest time, in nanoseconds, that the permits of a full
// bucket may span (Burst * Period/Limit): 2^62ns, about 146 years. The
// limiter keeps times as int64 clock readings; this bound leaves the clock
// as much room again to run before a reading plus a span could overflow.
const maxSpan = 1 << 62
