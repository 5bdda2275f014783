package adaptivelimit

import (
	"math"
	"strings"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// Algorithm is how the limit is recomputed at the end of each window.
type Algorithm uint8

const (
	// Gradient2 compares each window's latency with a long-term average and
	// grows the limit while the two agree (the default).
	Gradient2 Algorithm = iota
	// AIMD grows the limit by one after a busy window without a drop and
	// multiplies it by BackoffRatio after a window with one.
	AIMD
	// Vegas estimates the queue from the ratio of the window's latency to
	// the lowest latency seen, and keeps it short.
	Vegas
	// Little finds the dependency's knee (the concurrency past which calls
	// only queue) by changes of the limit that goodput verifies, and holds
	// the limit at the knee that Little's law gives plus 7% (see the
	// package documentation). It is the algorithm we recommend when the
	// dependency's capacity is not known.
	Little
)

// String returns "gradient2", "aimd", "vegas" or "little".
func (a Algorithm) String() string {
	switch a {
	case Gradient2:
		return "gradient2"
	case AIMD:
		return "aimd"
	case Vegas:
		return "vegas"
	case Little:
		return "little"
	}
	return "unknown"
}

// MarshalText returns the name String returns; an Algorithm that is none
// of the four is a [*policy.FieldError].
func (a Algorithm) MarshalText() ([]byte, error) {
	if a > Little {
		return nil, &policy.FieldError{Key: "algorithm", Value: policy.Int(int(a)), Rule: "must be gradient2, aimd, vegas or little", Class: policy.ClassRange}
	}
	return []byte(a.String()), nil
}

// UnmarshalText sets a from its name, as the flat key algorithm takes it:
// "gradient2", "aimd", "vegas" or "little", case-insensitive. An unknown
// name is a [*policy.FieldError] and leaves a unchanged.
func (a *Algorithm) UnmarshalText(b []byte) error {
	switch strings.ToLower(strings.TrimSpace(string(b))) {
	case "gradient2":
		*a = Gradient2
	case "aimd":
		*a = AIMD
	case "vegas":
		*a = Vegas
	case "little":
		*a = Little
	default:
		return &policy.FieldError{Key: "algorithm", Value: string(b), Rule: "must be gradient2, aimd, vegas or little", Class: policy.ClassRange}
	}
	return nil
}

// Config configures an adaptive limit. The zero value of every field means
// "not set here": the registry fills it from the layer below, and [New]
// from the defaults given on each field. To set a field back to zero over
// a lower layer, use [Config.SetZero] (or [Config.Enable] for Disabled).
// [Keys] lists the flat key of each field.
type Config struct {
	// Name shares one limit between pipelines: every pipeline that gives the
	// same Name uses the same instance, which must resolve to the same
	// configuration. Default: the pipeline's name.
	Name string
	// BaseConfig starts from a named configuration of the registry.
	BaseConfig string
	// Disabled lets every call pass without measuring anything (key
	// enabled=false).
	Disabled bool
	// Algorithm recomputes the limit. Default Gradient2.
	Algorithm Algorithm
	// InitialLimit is the limit before the first window ends. Default 20.
	InitialLimit int
	// MinLimit and MaxLimit bound the limit. Defaults 1 and 200.
	MinLimit, MaxLimit int
	// Window is the shortest duration of a window. Default 1s.
	Window time.Duration
	// MinWindowSamples is the fewest samples a window needs to end. Default 10.
	MinWindowSamples int
	// DropOn lists the errors (matched with errors.Is) that mark a call as
	// a drop: an overload signal whose latency counts. Default (nil): the
	// call timeout (timeout.ErrCallTimeout) and a full bulkhead
	// (bulkhead.ErrFull). An empty, non-nil slice means no error is a drop.
	DropOn []error
	// DropIf, when set, marks a failure as a drop too if it returns true.
	DropIf func(error) bool

	// Smoothing is Gradient2's and Vegas's smoothing factor, in (0, 1].
	// Default 0.2 (Vegas: 1.0). Little uses neither it nor the other tuning
	// fields below (RTTTolerance to ProbeMultiplier): its tuning is fixed
	// (see the package documentation).
	Smoothing float64
	// RTTTolerance is how much higher than the long-term average the
	// window's latency may be before Gradient2 lowers the limit; at least 1.
	// Default 1.5.
	RTTTolerance float64
	// LongWindow is the number of windows Gradient2's long-term average
	// spans. Default 600.
	LongWindow int
	// QueueSize is what Gradient2 adds to the limit each window. Default 4.
	QueueSize int
	// BackoffRatio is what AIMD multiplies the limit by after a drop, in
	// [0.5, 1). Default 0.9.
	BackoffRatio float64
	// ProbeMultiplier sets how often Vegas re-measures its no-load latency:
	// about every ProbeMultiplier*limit windows, with a deterministic jitter
	// between one half and one (see the package documentation). Default 30.
	ProbeMultiplier int

	// MaxWait, when positive, lets a call wait up to MaxWait for a slot
	// instead of failing at once. Default 0: fail fast.
	MaxWait time.Duration
	// LatencyCeiling, when positive, makes a window whose average latency is
	// above it count as overload whatever the long-term average says (for
	// Little: a cut, without its new-normal check). Default 0: off.
	LatencyCeiling time.Duration

	// LowPriorityShare is the share of the limit that calls marked
	// [PriorityLow] may use: such a call is admitted only while fewer than
	// max(1, floor(LowPriorityShare*limit)) calls are in flight, so low
	// priority work is shed first as the limit fills. In (0, 1]; 1 treats
	// low priority like normal. Default 0.8.
	LowPriorityShare float64

	// zero records the keys set to zero on purpose (SetZero, Enable).
	zero policy.ZeroSet
}

// The built-in defaults that [Config.WithDefaults] applies.
const (
	DefaultInitialLimit     = 20
	DefaultMinLimit         = 1
	DefaultMaxLimit         = 200
	DefaultWindow           = time.Second
	DefaultMinWindowSamples = 10
	DefaultSmoothing        = 0.2 // Gradient2; Vegas defaults to 1.0
	DefaultRTTTolerance     = 1.5
	DefaultLongWindow       = 600
	DefaultQueueSize        = 4
	DefaultBackoffRatio     = 0.9
	DefaultProbeMultiplier  = 30
	DefaultLowPriorityShare = 0.8
)

// The bounds that [Config.Validate] enforces beyond "at least 1".
const (
	// MaxLimitCeiling is the largest MaxLimit accepted (2^30).
	MaxLimitCeiling = 1 << 30
	// MinWindowDuration and MaxWindowDuration bound Window.
	MinWindowDuration = time.Millisecond
	MaxWindowDuration = time.Hour
)

// WithDefaults returns a copy of c with every field that is not set (zero,
// or nil for DropOn) filled with its built-in default. Two defaults follow
// the fields that are set, so that setting one bound alone is never an
// error: an unset MaxLimit is raised to MinLimit when MinLimit is above 200,
// and an unset InitialLimit is 20 moved into [MinLimit, MaxLimit]; an unset
// Smoothing is 1.0 for Vegas and 0.2 otherwise. Fields that are set, even to
// invalid values, are kept for [Config.Validate] to report, and so are the
// keys given to [Config.SetZero]: they stay zero.
func (c Config) WithDefaults() Config {
	unset := func(zero bool, key string) bool { return zero && !c.zero.Has(key) }
	if unset(c.MinLimit == 0, "minLimit") {
		c.MinLimit = DefaultMinLimit
	}
	if unset(c.MaxLimit == 0, "maxLimit") {
		c.MaxLimit = DefaultMaxLimit
		if c.MinLimit > c.MaxLimit {
			c.MaxLimit = c.MinLimit
		}
	}
	if unset(c.InitialLimit == 0, "initialLimit") {
		c.InitialLimit = DefaultInitialLimit
		if c.InitialLimit > c.MaxLimit {
			c.InitialLimit = c.MaxLimit
		}
		if c.InitialLimit < c.MinLimit {
			c.InitialLimit = c.MinLimit
		}
	}
	if unset(c.Window == 0, "window") {
		c.Window = DefaultWindow
	}
	if unset(c.MinWindowSamples == 0, "minWindowSamples") {
		c.MinWindowSamples = DefaultMinWindowSamples
	}
	if c.DropOn == nil {
		c.DropOn = []error{policy.ErrCallTimeout, policy.ErrBulkheadFull}
	}
	if unset(c.Smoothing == 0, "smoothing") {
		c.Smoothing = DefaultSmoothing
		if c.Algorithm == Vegas {
			c.Smoothing = 1
		}
	}
	if unset(c.RTTTolerance == 0, "rttTolerance") {
		c.RTTTolerance = DefaultRTTTolerance
	}
	if unset(c.LongWindow == 0, "longWindow") {
		c.LongWindow = DefaultLongWindow
	}
	if unset(c.QueueSize == 0, "queueSize") {
		c.QueueSize = DefaultQueueSize
	}
	if unset(c.BackoffRatio == 0, "backoffRatio") {
		c.BackoffRatio = DefaultBackoffRatio
	}
	if unset(c.ProbeMultiplier == 0, "probeMultiplier") {
		c.ProbeMultiplier = DefaultProbeMultiplier
	}
	if unset(c.LowPriorityShare == 0, "lowPriorityShare") {
		c.LowPriorityShare = DefaultLowPriorityShare
	}
	return c
}

// Validate checks a config that went through [Config.WithDefaults] and
// returns the first rule it breaks as a [*policy.FieldError] whose Key is
// the flat key of the field (such as "minLimit"), or nil. The rules, in the
// order they are checked:
//
//   - every name given to [Config.SetZero] is a key other than enabled (a
//     [*policy.ZeroError]);
//   - algorithm is gradient2, aimd, vegas or little ([policy.ClassRange]);
//   - minLimit, maxLimit, initialLimit, minWindowSamples, longWindow,
//     queueSize and probeMultiplier are at least 1 ([policy.ClassBound]);
//   - maxLimit is at most [MaxLimitCeiling] ([policy.ClassRange]);
//   - minLimit <= maxLimit, then minLimit <= initialLimit <= maxLimit
//     ([policy.ClassOrder], reported on minLimit, then initialLimit);
//   - window is not negative ([policy.ClassDuration]) and lies in
//     [1ms, 1h] ([policy.ClassOrder]);
//   - smoothing and lowPriorityShare are in (0, 1], backoffRatio in
//     [0.5, 1), rttTolerance at least 1 ([policy.ClassRange]);
//   - maxWait and latencyCeiling are not negative ([policy.ClassDuration]).
//
// Validate does not check DropOn or DropIf: any list and any predicate are
// valid.
func (c Config) Validate() error {
	if err := keys.CheckZeroes(&c); err != nil {
		return err
	}
	if c.Algorithm > Little {
		return &policy.FieldError{Key: "algorithm", Value: policy.Int(int(c.Algorithm)),
			Rule: "must be gradient2, aimd, vegas or little", Class: policy.ClassRange}
	}
	bounds := []struct {
		key string
		v   int
	}{
		{"minLimit", c.MinLimit},
		{"maxLimit", c.MaxLimit},
		{"initialLimit", c.InitialLimit},
		{"minWindowSamples", c.MinWindowSamples},
		{"longWindow", c.LongWindow},
		{"queueSize", c.QueueSize},
		{"probeMultiplier", c.ProbeMultiplier},
	}
	for _, b := range bounds {
		if b.v < 1 {
			return &policy.FieldError{Key: b.key, Value: policy.Int(b.v),
				Rule: "must be at least 1", Class: policy.ClassBound}
		}
	}
	if c.MaxLimit > MaxLimitCeiling {
		return &policy.FieldError{Key: "maxLimit", Value: policy.Int(c.MaxLimit),
			Rule: "must be at most " + policy.Int(MaxLimitCeiling), Class: policy.ClassRange}
	}
	if c.MinLimit > c.MaxLimit {
		return &policy.FieldError{Key: "minLimit", Value: policy.Int(c.MinLimit),
			Rule: "must not exceed maxLimit (" + policy.Int(c.MaxLimit) + ")", Class: policy.ClassOrder}
	}
	if c.InitialLimit < c.MinLimit {
		return &policy.FieldError{Key: "initialLimit", Value: policy.Int(c.InitialLimit),
			Rule: "must be at least minLimit (" + policy.Int(c.MinLimit) + ")", Class: policy.ClassOrder}
	}
	if c.InitialLimit > c.MaxLimit {
		return &policy.FieldError{Key: "initialLimit", Value: policy.Int(c.InitialLimit),
			Rule: "must not exceed maxLimit (" + policy.Int(c.MaxLimit) + ")", Class: policy.ClassOrder}
	}
	if c.Window < 0 {
		return &policy.FieldError{Key: "window", Value: policy.Dur(c.Window),
			Rule: "must not be negative", Class: policy.ClassDuration}
	}
	if c.Window < MinWindowDuration || c.Window > MaxWindowDuration {
		return &policy.FieldError{Key: "window", Value: policy.Dur(c.Window),
			Rule: "window out of range: must be between 1ms and 1h", Class: policy.ClassOrder}
	}
	ratios := []struct {
		key    string
		v      float64
		ok     bool
		within string
	}{
		{"smoothing", c.Smoothing, c.Smoothing > 0 && c.Smoothing <= 1, "must be in (0, 1]"},
		{"rttTolerance", c.RTTTolerance, c.RTTTolerance >= 1 && !math.IsInf(c.RTTTolerance, 1), "must be at least 1"},
		{"backoffRatio", c.BackoffRatio, c.BackoffRatio >= 0.5 && c.BackoffRatio < 1, "must be in [0.5, 1)"},
		{"lowPriorityShare", c.LowPriorityShare, c.LowPriorityShare > 0 && c.LowPriorityShare <= 1, "must be a fraction in (0, 1]: 50 % is 0.5"},
	}
	for _, r := range ratios {
		if !r.ok { // written so that NaN fails too
			return &policy.FieldError{Key: r.key, Value: policy.Float(r.v), Rule: r.within, Class: policy.ClassRange}
		}
	}
	if c.MaxWait < 0 {
		return &policy.FieldError{Key: "maxWait", Value: policy.Dur(c.MaxWait),
			Rule: "must not be negative", Class: policy.ClassDuration}
	}
	if c.LatencyCeiling < 0 {
		return &policy.FieldError{Key: "latencyCeiling", Value: policy.Dur(c.LatencyCeiling),
			Rule: "must not be negative", Class: policy.ClassDuration}
	}
	return nil
}
