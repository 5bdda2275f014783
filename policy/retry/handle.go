package retry

// Handle gives read access to a [Retry]'s figures. Make it with
// [Retry.Handle]; it is safe for concurrent use.
type Handle struct{ r *Retry }

// Handle returns the handle of r.
func (r *Retry) Handle() *Handle { return &Handle{r} }

// Config returns the retry's configuration, defaults filled in: as built,
// with the changes of its setters and of Registry.Reload.
func (h *Handle) Config() Config {
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	return h.r.cfg
}

// Snapshot is a retry's figures at one moment. Counts are totals since the
// retry was built; each call that ended is counted in exactly one of the
// outcome fields (read one by one, so under load they may be a call apart).
type Snapshot struct {
	// Disabled reports that the retry passes every call through.
	Disabled bool
	// MaxAttempts is the most attempts a call makes.
	MaxAttempts int
	// Calls is the number of calls that ended: the sum of the outcome
	// fields below.
	Calls int64
	// Retries is the number of retry attempts started (attempts after the
	// first).
	Retries int64
	// SuccessesWithoutRetry counts calls whose first attempt succeeded.
	SuccessesWithoutRetry int64
	// SuccessesWithRetry counts calls that succeeded after one retry or more.
	SuccessesWithRetry int64
	// FailuresWithoutRetry counts calls whose first attempt failed with an
	// error not to be retried (aborted, or not listed in RetryOn/RetryIf).
	FailuresWithoutRetry int64
	// FailuresWithRetry counts calls whose retry failed with an error not
	// to be retried.
	FailuresWithRetry int64
	// Exhausted counts calls that gave up after MaxAttempts attempts.
	Exhausted int64
	// BudgetRejections counts calls that gave up because the retry budget
	// allowed no more retries.
	BudgetRejections int64
	// Cancelled counts calls ended by the caller's own cancellation: during
	// an attempt, during a wait, or by cancelling an asynchronous call.
	Cancelled int64
	// BudgetEnabled reports whether the retry has a budget (BudgetRatio > 0).
	BudgetEnabled bool
	// BudgetAvailable is the number of retries the budget allows right now
	// (0 without a budget).
	BudgetAvailable int
}

// Snapshot returns the retry's figures. It reads the clock once if the
// retry has a budget; it allocates nothing.
func (h *Handle) Snapshot() Snapshot {
	r := h.r
	s := Snapshot{
		Disabled:              r.disabled,
		MaxAttempts:           r.bo.Load().maxAttempts,
		Retries:               r.retries.Load(),
		SuccessesWithoutRetry: r.successes.Load(),
		SuccessesWithRetry:    r.successesRetried.Load(),
		FailuresWithoutRetry:  r.failures.Load(),
		FailuresWithRetry:     r.failuresRetried.Load(),
		Exhausted:             r.exhausted.Load(),
		BudgetRejections:      r.budgetRejections.Load(),
		Cancelled:             r.cancelled.Load(),
		BudgetEnabled:         r.budget != nil,
	}
	s.Calls = s.SuccessesWithoutRetry + s.SuccessesWithRetry + s.FailuresWithoutRetry +
		s.FailuresWithRetry + s.Exhausted + s.BudgetRejections + s.Cancelled
	if r.budget != nil {
		s.BudgetAvailable = r.budget.available(r.clock.Nanotime())
	}
	return s
}
