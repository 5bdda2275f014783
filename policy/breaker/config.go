package breaker

import (
	"math"
	"strings"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// WindowType is how the closed breaker's sliding window keeps calls.
type WindowType uint8

const (
	// CountBased keeps the outcomes of the last WindowSize calls (the
	// default).
	CountBased WindowType = iota
	// TimeBased keeps the outcomes of the calls that ended in the last
	// WindowDuration.
	TimeBased
)

// String returns "count-based" or "time-based".
func (t WindowType) String() string {
	switch t {
	case CountBased:
		return "count-based"
	case TimeBased:
		return "time-based"
	}
	return "unknown"
}

// MarshalText returns the name String returns.
func (t WindowType) MarshalText() ([]byte, error) {
	if t > TimeBased {
		return nil, &policy.FieldError{Key: "windowType", Value: policy.Int(int(t)), Rule: "must be count-based or time-based", Class: policy.ClassRange}
	}
	return []byte(t.String()), nil
}

// UnmarshalText sets t from its name, as the flat key windowType takes it:
// "count-based" or "time-based", case-insensitive, also written "count",
// "time", "count_based" or "time_based" (resilience4j's COUNT_BASED and
// TIME_BASED). An unknown name is a *policy.FieldError of class ClassRange.
func (t *WindowType) UnmarshalText(b []byte) error {
	switch strings.ReplaceAll(strings.ToLower(strings.TrimSpace(string(b))), "_", "-") {
	case "count-based", "count":
		*t = CountBased
	case "time-based", "time":
		*t = TimeBased
	default:
		return &policy.FieldError{Key: "windowType", Value: string(b), Rule: "must be count-based or time-based", Class: policy.ClassRange}
	}
	return nil
}

// The built-in defaults that [Config.WithDefaults] fills in.
const (
	DefaultWindowSize            = 100
	DefaultWindowDuration        = 60 * time.Second
	DefaultMinimumCalls          = 100
	DefaultFailureRateThreshold  = 0.5
	DefaultSlowCallRateThreshold = 1.0
	DefaultSlowCallDuration      = 60 * time.Second
	DefaultOpenFor               = 60 * time.Second
	DefaultHalfOpenCalls         = 10
)

// Limits of the windows and of the half-open trial calls.
const (
	// MaxWindowSize is the largest WindowSize.
	MaxWindowSize = 1_000_000
	// MaxHalfOpenCalls is the largest HalfOpenCalls.
	MaxHalfOpenCalls = 1_000_000
	// MinWindowDuration and MaxWindowDuration bound WindowDuration.
	MinWindowDuration = time.Millisecond
	MaxWindowDuration = 24 * time.Hour
)

// Config configures a circuit breaker. It is plain data. The zero value of
// every field means "not set here": the registry fills it from the layer
// below, and [Config.WithDefaults] from the default given on each field. To
// set a field back to zero over a lower layer, use [Config.SetZero] (or
// [Config.Enable] for Disabled).
//
// The flat key of each setting is shown in brackets; the error lists and
// predicates are set in code.
type Config struct {
	// Name shares one breaker between pipelines: every pipeline that gives
	// the same Name uses the same instance. Default: the pipeline's name.
	Name string
	// BaseConfig starts from a named configuration of the registry.
	BaseConfig string
	// Disabled starts the breaker in the disabled state: it admits every
	// call and records nothing [key enabled=false]. A manual transition
	// (Handle.TransitionToClosed) turns it on.
	Disabled bool

	// WindowType is how the closed breaker keeps calls. Default CountBased
	// [windowType: count-based or time-based].
	WindowType WindowType
	// WindowSize is the number of calls a count-based window keeps, in
	// [1, 1000000]. Default 100 [windowSize].
	WindowSize int
	// WindowDuration is the span a time-based window keeps, in [1ms, 24h].
	// It is kept as 20 buckets of WindowDuration/20, and a bucket leaves the
	// window as a whole. Default 60s [windowDuration]. Count-based
	// windows ignore it.
	WindowDuration time.Duration
	// MinimumCalls is how many calls the window must hold before the
	// breaker judges its rates; a count-based window uses at most
	// WindowSize. At least 1. Default 100 [minimumCalls].
	MinimumCalls int

	// FailureRateThreshold is the fraction of failed calls, in (0, 1], at
	// or above which the breaker opens: 0.5 opens it when half the calls
	// fail (resilience4j writes that 50; here 50 is an error). Default 0.5
	// [failureRateThreshold].
	FailureRateThreshold float64
	// SlowCallRateThreshold is the fraction of slow calls, in (0, 1], at or
	// above which the breaker opens. Default 1: only a window of slow calls
	// alone opens it [slowCallRateThreshold].
	SlowCallRateThreshold float64
	// SlowCallDuration is the latency above which a call is slow (a call
	// that takes exactly SlowCallDuration is not). Positive. Default 60s
	// [slowCallDuration].
	SlowCallDuration time.Duration

	// OpenFor is how long the breaker stays open before it lets trial calls
	// through (half-open). The move happens on the first call after OpenFor
	// has passed; no goroutine watches the clock. Not negative. Default 60s
	// [openFor].
	OpenFor time.Duration
	// HalfOpenCalls is the number of trial calls the half-open breaker lets
	// through; once all have ended it closes, or opens again if their rates
	// reach a threshold. In [1, 1000000]. Default 10 [halfOpenCalls].
	HalfOpenCalls int
	// MaxHalfOpenWait, when positive, is the longest the breaker stays
	// half-open: a call that arrives later, while trial calls are still
	// unfinished, opens it again. Default 0: wait for every trial call
	// [maxHalfOpenWait].
	MaxHalfOpenWait time.Duration

	// RecordOn lists the errors (matched with errors.Is) that count as
	// failures. When RecordOn and RecordIf are both empty every error is a
	// failure; when either is set, other errors count as successes.
	RecordOn []error
	// RecordIf, when set, also makes an error a failure when it returns true.
	RecordIf func(error) bool
	// IgnoreOn lists the errors (matched with errors.Is) that count as
	// neither success nor failure. It wins over RecordOn. The caller's own
	// cancellation is always ignored. A full adaptive limit
	// (adaptivelimit.ErrLimitExceeded) is a failure unless listed here.
	IgnoreOn []error
	// IgnoreIf, when set, also ignores an error when it returns true.
	IgnoreIf func(error) bool

	// zero records the keys set to zero on purpose (SetZero, Enable).
	zero policy.ZeroSet
}

// WithDefaults returns c with every field that is not set filled with its
// built-in default. The keys given to [Config.SetZero] stay zero.
func (c Config) WithDefaults() Config {
	unset := func(zero bool, key string) bool { return zero && !c.zero.Has(key) }
	if unset(c.WindowSize == 0, "windowSize") {
		c.WindowSize = DefaultWindowSize
	}
	if unset(c.WindowDuration == 0, "windowDuration") {
		c.WindowDuration = DefaultWindowDuration
	}
	if unset(c.MinimumCalls == 0, "minimumCalls") {
		c.MinimumCalls = DefaultMinimumCalls
	}
	if unset(c.FailureRateThreshold == 0, "failureRateThreshold") {
		c.FailureRateThreshold = DefaultFailureRateThreshold
	}
	if unset(c.SlowCallRateThreshold == 0, "slowCallRateThreshold") {
		c.SlowCallRateThreshold = DefaultSlowCallRateThreshold
	}
	if unset(c.SlowCallDuration == 0, "slowCallDuration") {
		c.SlowCallDuration = DefaultSlowCallDuration
	}
	if unset(c.OpenFor == 0, "openFor") {
		c.OpenFor = DefaultOpenFor
	}
	if unset(c.HalfOpenCalls == 0, "halfOpenCalls") {
		c.HalfOpenCalls = DefaultHalfOpenCalls
	}
	return c
}

// Validate checks a defaulted Config (see [Config.WithDefaults]) and returns
// the first rule it breaks as a *policy.FieldError whose Key is the flat key
// (such as "failureRateThreshold"), or nil. The thresholds are fractions in
// (0, 1]; a name given to [Config.SetZero] that is no key, or is enabled,
// is a [*policy.ZeroError].
func (c Config) Validate() error {
	if err := keys.CheckZeroes(&c); err != nil {
		return err
	}
	fraction := func(v float64) bool { return v > 0 && v <= 1 && !math.IsNaN(v) }
	const fractionRule = "must be a fraction in (0, 1]: 50 % is 0.5"
	switch {
	case c.WindowType > TimeBased:
		return &policy.FieldError{Key: "windowType", Value: policy.Int(int(c.WindowType)), Rule: "must be count-based or time-based", Class: policy.ClassRange}
	case c.WindowSize < 1:
		return &policy.FieldError{Key: "windowSize", Value: policy.Int(c.WindowSize), Rule: "must be at least 1", Class: policy.ClassBound}
	case c.WindowSize > MaxWindowSize:
		return &policy.FieldError{Key: "windowSize", Value: policy.Int(c.WindowSize), Rule: "window out of range: must be at most 1000000", Class: policy.ClassOrder}
	case c.WindowDuration < 0:
		return &policy.FieldError{Key: "windowDuration", Value: policy.Dur(c.WindowDuration), Rule: "must not be negative", Class: policy.ClassDuration}
	case c.WindowDuration < MinWindowDuration || c.WindowDuration > MaxWindowDuration:
		return &policy.FieldError{Key: "windowDuration", Value: policy.Dur(c.WindowDuration), Rule: "window out of range: must be between 1ms and 24h", Class: policy.ClassOrder}
	case c.MinimumCalls < 1:
		return &policy.FieldError{Key: "minimumCalls", Value: policy.Int(c.MinimumCalls), Rule: "must be at least 1", Class: policy.ClassBound}
	case !fraction(c.FailureRateThreshold):
		return &policy.FieldError{Key: "failureRateThreshold", Value: policy.Float(c.FailureRateThreshold), Rule: fractionRule, Class: policy.ClassRange}
	case !fraction(c.SlowCallRateThreshold):
		return &policy.FieldError{Key: "slowCallRateThreshold", Value: policy.Float(c.SlowCallRateThreshold), Rule: fractionRule, Class: policy.ClassRange}
	case c.SlowCallDuration <= 0:
		return &policy.FieldError{Key: "slowCallDuration", Value: policy.Dur(c.SlowCallDuration), Rule: "must be positive", Class: policy.ClassDuration}
	case c.OpenFor < 0:
		return &policy.FieldError{Key: "openFor", Value: policy.Dur(c.OpenFor), Rule: "must not be negative", Class: policy.ClassDuration}
	case c.HalfOpenCalls < 1:
		return &policy.FieldError{Key: "halfOpenCalls", Value: policy.Int(c.HalfOpenCalls), Rule: "must be at least 1", Class: policy.ClassBound}
	case c.HalfOpenCalls > MaxHalfOpenCalls:
		return &policy.FieldError{Key: "halfOpenCalls", Value: policy.Int(c.HalfOpenCalls), Rule: "must be at most 1000000", Class: policy.ClassRange}
	case c.MaxHalfOpenWait < 0:
		return &policy.FieldError{Key: "maxHalfOpenWait", Value: policy.Dur(c.MaxHalfOpenWait), Rule: "must not be negative", Class: policy.ClassDuration}
	}
	return nil
}
