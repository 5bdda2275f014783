package retry

import (
	"math"
	"strings"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// Jitter is how a retry spreads its waits at random, so that callers that
// failed together do not all come back at the same instant.
type Jitter uint8

const (
	// JitterNone waits exactly the backoff: Wait × Multiplier^(n-1) before
	// retry n, capped at MaxDelay (the default).
	JitterNone Jitter = iota
	// JitterFull waits a uniformly random duration in [0, backoff), where
	// backoff is what JitterNone would wait.
	JitterFull
	// JitterDecorrelated waits a uniformly random duration between Wait and
	// three times the previous wait (the first previous wait being Wait),
	// capped at MaxDelay. It ignores Multiplier: the waits grow by up to
	// threefold on their own, and no two callers follow the same sequence.
	JitterDecorrelated
)

// String returns "none", "full" or "decorrelated".
func (j Jitter) String() string {
	switch j {
	case JitterNone:
		return "none"
	case JitterFull:
		return "full"
	case JitterDecorrelated:
		return "decorrelated"
	}
	return "unknown"
}

// MarshalText returns the name String returns.
func (j Jitter) MarshalText() ([]byte, error) {
	if j > JitterDecorrelated {
		return nil, &policy.FieldError{Key: "jitter", Value: policy.Int(int(j)), Rule: "must be none, full or decorrelated", Class: policy.ClassRange}
	}
	return []byte(j.String()), nil
}

// UnmarshalText sets j from its name ("none", "full" or "decorrelated",
// case-insensitive), as the flat key jitter takes it. An unknown name is a
// *policy.FieldError of class ClassRange.
func (j *Jitter) UnmarshalText(b []byte) error {
	switch strings.ToLower(strings.TrimSpace(string(b))) {
	case "none":
		*j = JitterNone
	case "full":
		*j = JitterFull
	case "decorrelated":
		*j = JitterDecorrelated
	default:
		return &policy.FieldError{Key: "jitter", Value: string(b), Rule: "must be none, full or decorrelated", Class: policy.ClassRange}
	}
	return nil
}

// The built-in defaults that [Config.WithDefaults] fills in.
const (
	DefaultMaxAttempts      = 3
	DefaultWait             = 500 * time.Millisecond
	DefaultMultiplier       = 1.0
	DefaultBudgetWindow     = 10 * time.Second
	DefaultBudgetMinRetries = 10
)

// Bounds on the budget window, which is kept as [budgetBuckets] buckets.
const (
	minBudgetWindow = time.Millisecond
	maxBudgetWindow = 24 * time.Hour
)

// Config configures a retry. It is plain data. The zero value of every field
// means "not set here": the registry fills it from the layer below, and
// [Config.WithDefaults] from the default given on each field. To set a
// field back to zero over a lower layer, use [Config.SetZero] (or
// [Config.Enable] for Disabled).
//
// Only the numeric and named settings have flat keys (shown in brackets);
// the error lists, predicates and Rand are set in code.
type Config struct {
	// Name shares one retry between pipelines: every pipeline that gives
	// the same Name uses the same instance. Default: the pipeline's name.
	Name string
	// BaseConfig starts from a named configuration of the registry.
	BaseConfig string
	// Disabled makes the retry call once and pass the outcome through
	// [key enabled=false].
	Disabled bool

	// MaxAttempts is the most attempts a call makes, the first included, so
	// 3 means at most 2 retries. At least 1. Default 3 [maxAttempts].
	MaxAttempts int
	// Wait is the delay before the first retry. Not negative. Default 500ms
	// [wait]. Zero means "not set"; for retries without a wait, call
	// SetZero("wait").
	Wait time.Duration
	// Multiplier grows the delay after each retry: retry n waits
	// Wait × Multiplier^(n-1). At least 1; 1 keeps the delay constant.
	// Default 1 (a constant Wait, as resilience4j's default); 2 doubles the
	// delay each time [multiplier].
	Multiplier float64
	// MaxDelay caps every delay, when positive; it must not be below Wait.
	// Default 0: no cap [maxDelay].
	MaxDelay time.Duration
	// Jitter spreads the delays at random. Default JitterNone, so delays
	// are exact [jitter: none, full or decorrelated].
	Jitter Jitter

	// RetryOn lists the errors (matched with errors.Is) worth retrying.
	// When RetryOn and RetryIf are both empty, every error is retried
	// (except those of AbortOn/AbortIf and the caller's own cancellation).
	RetryOn []error
	// RetryIf, when set, also makes an error worth retrying when it
	// returns true.
	RetryIf func(error) bool
	// AbortOn lists errors (matched with errors.Is) that are never
	// retried, even if RetryOn or RetryIf match them: abort wins.
	AbortOn []error
	// AbortIf, when set, also aborts on an error when it returns true.
	AbortIf func(error) bool
	// RetryIfResult, when set, is called with every successful result; a
	// true return makes the call retry as if it had failed, with the error
	// [ErrRetryableResult]. The result is boxed in an interface only when
	// this field is set.
	RetryIfResult func(any) bool

	// WaitFunc, when set, chooses the wait before each retry: it is called
	// with the error of the failed attempt, the number of that attempt (1
	// for the first) and the wait the backoff computed (Wait, Multiplier,
	// MaxDelay and Jitter applied), and the retry waits what it returns
	// instead (a negative return waits nothing). The returned wait is used
	// as is: MaxDelay and Jitter do not apply to it. It must be safe for
	// concurrent use. Default nil: the backoff's wait. [RetryAfterWait]
	// honours the wait an error asks for (a rate limiter's refusal, an HTTP
	// 429 or 503 with Retry-After).
	WaitFunc func(err error, attempt int, backoff time.Duration) time.Duration

	// BudgetRatio turns on the retry budget when positive: over the last
	// BudgetWindow, retries may add at most BudgetRatio times the calls
	// made (plus BudgetMinRetries). So 0.2 lets retries add at most 20% to
	// the load on the dependency however many calls fail. In [0, 1].
	// Default 0: no budget [budgetRatio].
	BudgetRatio float64
	// BudgetWindow is the span over which the budget counts calls and
	// retries, in [1ms, 24h]. Default 10s [budgetWindow].
	BudgetWindow time.Duration
	// BudgetMinRetries is the number of retries the budget allows in any
	// BudgetWindow however few calls were made, so that a quiet caller can
	// still retry. At least 1. Default 10 [budgetMinRetries].
	BudgetMinRetries int

	// Rand returns a random number in [0, 1) for the jitter. It must be
	// safe for concurrent use. Default nil: math/rand/v2's Float64. Tests
	// set it to make jittered delays exact.
	Rand func() float64

	// zero records the keys set to zero on purpose (SetZero, Enable).
	zero policy.ZeroSet
}

// WithDefaults returns c with every field that is not set filled with its
// built-in default. The keys given to [Config.SetZero] stay zero.
func (c Config) WithDefaults() Config {
	unset := func(zero bool, key string) bool { return zero && !c.zero.Has(key) }
	if unset(c.MaxAttempts == 0, "maxAttempts") {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if unset(c.Wait == 0, "wait") {
		c.Wait = DefaultWait
	}
	if unset(c.Multiplier == 0, "multiplier") {
		c.Multiplier = DefaultMultiplier
	}
	if unset(c.BudgetWindow == 0, "budgetWindow") {
		c.BudgetWindow = DefaultBudgetWindow
	}
	if unset(c.BudgetMinRetries == 0, "budgetMinRetries") {
		c.BudgetMinRetries = DefaultBudgetMinRetries
	}
	return c
}

// Validate checks a defaulted Config (see [Config.WithDefaults]) and returns
// the first rule it breaks as a *policy.FieldError whose Key is the flat key
// (such as "maxAttempts"), or nil; a name given to [Config.SetZero] that
// is no key, or is enabled, is a [*policy.ZeroError].
func (c Config) Validate() error {
	if err := keys.CheckZeroes(&c); err != nil {
		return err
	}
	switch {
	case c.MaxAttempts < 1:
		return &policy.FieldError{Key: "maxAttempts", Value: policy.Int(c.MaxAttempts), Rule: "must be at least 1", Class: policy.ClassBound}
	case c.Wait < 0:
		return &policy.FieldError{Key: "wait", Value: policy.Dur(c.Wait), Rule: "must not be negative", Class: policy.ClassDuration}
	case !(c.Multiplier >= 1) || math.IsInf(c.Multiplier, 0):
		return &policy.FieldError{Key: "multiplier", Value: policy.Float(c.Multiplier), Rule: "must be a finite number of at least 1", Class: policy.ClassRange}
	case c.MaxDelay < 0:
		return &policy.FieldError{Key: "maxDelay", Value: policy.Dur(c.MaxDelay), Rule: "must not be negative", Class: policy.ClassDuration}
	case c.MaxDelay > 0 && c.MaxDelay < c.Wait:
		return &policy.FieldError{Key: "maxDelay", Value: policy.Dur(c.MaxDelay), Rule: "must not be below wait (" + policy.Dur(c.Wait) + ")", Class: policy.ClassOrder}
	case c.Jitter > JitterDecorrelated:
		return &policy.FieldError{Key: "jitter", Value: policy.Int(int(c.Jitter)), Rule: "must be none, full or decorrelated", Class: policy.ClassRange}
	case !(c.BudgetRatio >= 0 && c.BudgetRatio <= 1):
		return &policy.FieldError{Key: "budgetRatio", Value: policy.Float(c.BudgetRatio), Rule: "must be a fraction in [0, 1]: 20 % is 0.2", Class: policy.ClassRange}
	case c.BudgetWindow < 0:
		return &policy.FieldError{Key: "budgetWindow", Value: policy.Dur(c.BudgetWindow), Rule: "must not be negative", Class: policy.ClassDuration}
	case c.BudgetWindow < minBudgetWindow || c.BudgetWindow > maxBudgetWindow:
		return &policy.FieldError{Key: "budgetWindow", Value: policy.Dur(c.BudgetWindow), Rule: "window out of range: must be between 1ms and 24h", Class: policy.ClassOrder}
	case c.BudgetMinRetries < 1:
		return &policy.FieldError{Key: "budgetMinRetries", Value: policy.Int(c.BudgetMinRetries), Rule: "must be at least 1", Class: policy.ClassBound}
	}
	return nil
}
