package retry

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

// Retry calls again a call that failed with an error worth retrying, after
// a wait on its clock, up to MaxAttempts attempts and within its retry
// budget. Make one with [New]; use it in a pipeline through [Stage], or on
// its own with [Retry.Do].
//
// A Retry is safe for concurrent use; one serves every call of every
// pipeline that shares it. It holds nothing between attempts: each attempt
// goes through the stages inside afresh (taking and freeing its own slots),
// and the wait between attempts holds none.
type Retry struct {
	// successes is written on every call that succeeds at once: keep it on
	// a cache line of its own, away from the read-only fields.
	successes atomic.Int64
	_         [56]byte

	cfg      Config
	clock    policy.Clock
	bus      *events.Bus
	instance string

	disabled bool
	bo       atomic.Pointer[backoff] // the live settings; a setter swaps them
	mu       sync.Mutex              // serialises setters; guards cfg
	rand     func() float64
	retryOn  []error
	retryIf  func(error) bool
	abortOn  []error
	abortIf  func(error) bool
	resultIf func(any) bool
	waitFunc func(error, int, time.Duration) time.Duration
	budget   *budget // nil: no budget

	retries          atomic.Int64
	successesRetried atomic.Int64
	failures         atomic.Int64
	failuresRetried  atomic.Int64
	exhausted        atomic.Int64
	budgetRejections atomic.Int64
	cancelled        atomic.Int64
}

// New returns a Retry configured by cfg (after [Config.WithDefaults]) that
// waits on env's clock and publishes on env's bus. It returns cfg's first
// violation as a *policy.FieldError, unwrapped; it never panics.
func New(cfg Config, env policy.Env) (*Retry, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Retry{
		cfg:      cfg,
		clock:    env.ClockOrSystem(),
		bus:      env.Events,
		instance: env.Instance,
		disabled: cfg.Disabled,
		rand:     cfg.Rand,
		retryOn:  cfg.RetryOn,
		retryIf:  cfg.RetryIf,
		abortOn:  cfg.AbortOn,
		abortIf:  cfg.AbortIf,
		resultIf: cfg.RetryIfResult,
		waitFunc: cfg.WaitFunc,
	}
	if r.rand == nil {
		r.rand = rand.Float64
	}
	r.bo.Store(newBackoff(&cfg))
	if cfg.BudgetRatio > 0 {
		r.budget = newBudget(cfg.BudgetRatio, cfg.BudgetWindow, cfg.BudgetMinRetries, r.clock.Nanotime())
	}
	return r, nil
}

// Do calls fn, and calls it again while it fails with an error worth
// retrying, like a pipeline with this retry alone (RetryIfResult does not
// apply: fn has no result). It returns nil on success; the error of an
// attempt that is not to be retried, unchanged; an [*ExhaustedError] when
// it gave up; or ctx's error if ctx was done during a wait. The waits
// honour ctx and allocate a timer each; a call whose first attempt
// succeeds allocates nothing.
func (r *Retry) Do(ctx context.Context, fn func(context.Context) error) error {
	if r.disabled {
		return fn(ctx)
	}
	err := fn(ctx)
	if r.budget != nil {
		r.budget.deposit(r.clock.Nanotime())
	}
	if err == nil {
		r.successes.Add(1)
		return nil
	}
	var prev time.Duration
	for n := 1; ; n++ {
		switch r.decide(ctx, n, err, policy.NoStamp) {
		case stop:
			return err
		case give:
			return r.exhaustedError(n, err, false)
		case giveBud:
			return r.exhaustedError(n, err, true)
		}
		d := r.delay(n, prev)
		prev = d
		d = r.waitFor(err, n, d)
		r.publish(ctx, n, d, err)
		if werr := policy.Sleep(ctx, r.clock, d); werr != nil {
			r.cancelled.Add(1)
			return werr
		}
		r.retries.Add(1)
		if err = fn(ctx); err == nil {
			r.successesRetried.Add(1)
			return nil
		}
	}
}

// retryable reports whether err (not nil, not the caller's cancellation)
// is worth another attempt: AbortOn/AbortIf win over RetryOn/RetryIf, and
// with neither RetryOn nor RetryIf every error is.
func (r *Retry) retryable(err error) bool {
	if err == ErrRetryableResult {
		return true
	}
	if policy.Matches(err, r.abortOn, r.abortIf) {
		return false
	}
	if len(r.retryOn) == 0 && r.retryIf == nil {
		return true
	}
	return policy.Matches(err, r.retryOn, r.retryIf)
}

// delay returns the wait before retry n (1 for the first retry). prev is
// the previous wait, which JitterDecorrelated grows from.
func (r *Retry) delay(n int, prev time.Duration) time.Duration {
	bo := r.bo.Load()
	var d float64
	switch bo.jitter {
	case JitterDecorrelated:
		lo := float64(bo.wait)
		hi := 3 * math.Max(float64(prev), lo)
		d = lo + r.rand()*(hi-lo)
	default:
		d = float64(bo.wait) * math.Pow(bo.multiplier, float64(n-1))
		if bo.maxDelay > 0 && d > float64(bo.maxDelay) {
			d = float64(bo.maxDelay)
		}
		if bo.jitter == JitterFull {
			d *= r.rand()
		}
	}
	if bo.maxDelay > 0 && d > float64(bo.maxDelay) {
		d = float64(bo.maxDelay)
	}
	if d >= math.MaxInt64 || math.IsNaN(d) {
		return time.Duration(math.MaxInt64)
	}
	if d < 0 {
		return 0
	}
	return time.Duration(d)
}

// waitFor returns the wait before the retry that follows attempt n, which
// failed with err: backoff, or what Config.WaitFunc makes of it.
func (r *Retry) waitFor(err error, n int, backoff time.Duration) time.Duration {
	if r.waitFunc == nil {
		return backoff
	}
	if d := r.waitFunc(err, n, backoff); d > 0 {
		return d
	}
	return 0
}

// RetryAfterWait is a Config.WaitFunc that honours the wait an error asks
// for: when err, or an error it wraps (errors.As), has a method
// RetryAfter() time.Duration, the retry waits the longer of that and
// backoff; otherwise backoff. A rate limiter's refusal
// (ratelimit.RateLimitedError) and r4chttp's StatusError for a 429 or 503
// with a Retry-After header have that method.
func RetryAfterWait(err error, attempt int, backoff time.Duration) time.Duration {
	var ra interface{ RetryAfter() time.Duration }
	if errors.As(err, &ra) {
		if d := ra.RetryAfter(); d > backoff {
			return d
		}
	}
	return backoff
}

// now returns the reading s carries, or reads the clock.
func (r *Retry) now(s policy.Stamp) int64 {
	if s.OK() {
		return s.At()
	}
	return r.clock.Nanotime()
}

// publish reports that attempt n+1 starts after d because of err.
func (r *Retry) publish(ctx context.Context, n int, d time.Duration, err error) {
	if r.bus.Active() {
		r.bus.PublishContext(ctx, events.RetryAttempt{Instance: r.instance, Attempt: n + 1, Wait: d, Err: err})
	}
}

// verdict is what a retry does after a failed attempt.
type verdict uint8

const (
	stop    verdict = iota // return the error as is
	retry                  // wait, then try again
	give                   // return an *ExhaustedError
	giveBud                // the budget said no: return an *ExhaustedError
)

// decide chooses what follows attempt n, which failed with err (not nil),
// and counts the outcome of a call that ends. s is the end reading of the
// attempt, for the budget.
func (r *Retry) decide(ctx context.Context, n int, err error, s policy.Stamp) verdict {
	if policy.CallerCancelled(ctx, err) {
		r.cancelled.Add(1)
		return stop
	}
	if !r.retryable(err) {
		r.failed(n)
		return stop
	}
	if n >= r.bo.Load().maxAttempts {
		r.exhausted.Add(1)
		return give
	}
	if r.budget != nil && !r.budget.withdraw(r.now(s)) {
		r.budgetRejections.Add(1)
		return giveBud
	}
	return retry
}

// failed counts a call that ended in a failure after n attempts.
func (r *Retry) failed(n int) {
	if n == 1 {
		r.failures.Add(1)
	} else {
		r.failuresRetried.Add(1)
	}
}

func (r *Retry) exhaustedError(n int, err error, budget bool) error {
	return &ExhaustedError{Attempts: n, Last: err, Instance: r.instance, Budget: budget}
}

// backoff is the retry's live settings: read at each decision and each
// wait, and swapped whole by a setter.
type backoff struct {
	maxAttempts int
	wait        time.Duration
	maxDelay    time.Duration
	multiplier  float64
	jitter      Jitter
}

func newBackoff(cfg *Config) *backoff {
	return &backoff{maxAttempts: cfg.MaxAttempts, wait: cfg.Wait, maxDelay: cfg.MaxDelay,
		multiplier: cfg.Multiplier, jitter: cfg.Jitter}
}
