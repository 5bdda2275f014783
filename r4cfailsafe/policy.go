package r4cfailsafe

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/failsafe-go/failsafe-go/common"
	fspolicy "github.com/failsafe-go/failsafe-go/policy"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// Policy is one of r4c's policies as a failsafe-go policy, for
// failsafe.With, Compose and (with R = any) WithAny and ComposeAny:
//
//	h, _ := reg.AdaptiveLimit("search")
//	s, err := failsafe.With(retryPolicy, r4cfailsafe.AdaptiveLimit[string](h)).Get(fn)
//
// It runs each attempt through the instance's own pipeline stage, the code
// an r4c pipeline runs, so the semantics are r4c's: the registry's
// instance takes the slot or permit, its clock measures the call, its
// events are published on the registry's bus, and its handle's snapshot
// counts the call. How failsafe-go's outcomes reach r4c and r4c's
// rejections reach failsafe-go is in the package documentation.
//
// A Policy is safe for concurrent use and may be shared by any number of
// executors. It keeps no per-call state: ToExecutor returns the same
// executor every time, and an attempt allocates one small record (besides
// what failsafe-go allocates); a rejection allocates only failsafe-go's
// result.
type Policy[R any] struct {
	ex executor[R]
}

var (
	_ failsafe.Policy[any]               = (*Policy[any])(nil)
	_ failsafe.ResultAgnosticPolicy[any] = (*Policy[any])(nil)
	_ fspolicy.Executor[any]             = (*executor[any])(nil)
)

// ErrNoInstance is the error of every execution of a [Policy] made from a
// nil handle: there is no instance to run, and the function is not called.
var ErrNoInstance = errors.New("r4cfailsafe: no r4c instance (nil handle)")

// AdaptiveLimit returns the adaptive limit that h reads as a failsafe-go
// policy. Each attempt takes a slot (or is rejected at once, or waits under
// MaxWait), and frees it when the inner policies and the function return:
// a nil error is a sample; an error in DropOn (by default r4c's and
// failsafe-go's call timeouts and full bulkheads) is a sample marked as a
// drop; the caller's cancellation and other errors free the slot with no
// sample; a panic frees the slot and goes on.
//
// An execution whose context carries failsafe-go's policy.CheckOnlyKey (as
// failsafegrpc's tap handler sets) only checks for a free slot: it takes
// one and frees it at once, with no sample, then runs the inner policies
// without holding it; a full limit rejects it as any other call.
//
// A nil h makes a Policy whose executions fail with [ErrNoInstance].
func AdaptiveLimit[R any](h *adaptivelimit.Handle) *Policy[R] {
	if h == nil {
		return broken[R]()
	}
	l := h.Limiter()
	return newPolicy(adaptivelimit.Stage[R](l), l)
}

// Bulkhead returns the bulkhead that h reads as a failsafe-go policy. Each
// attempt holds a slot (waiting up to MaxWait for one) until the inner
// policies and the function return, a panic included.
//
// A nil h makes a Policy whose executions fail with [ErrNoInstance].
func Bulkhead[R any](h *bulkhead.Handle) *Policy[R] {
	if h == nil {
		return broken[R]()
	}
	return newPolicy(bulkhead.Stage[R](h.Bulkhead()), nil)
}

// Breaker returns the circuit breaker that h reads as a failsafe-go policy.
// Each attempt is admitted or refused by the breaker's state; its outcome
// is recorded by the breaker's own rules (RecordOn, IgnoreOn, slow calls on
// the registry's clock), the caller's cancellation is ignored, and a panic
// is recorded as a failure and goes on.
//
// A nil h makes a Policy whose executions fail with [ErrNoInstance].
func Breaker[R any](h *breaker.Handle) *Policy[R] {
	if h == nil {
		return broken[R]()
	}
	return newPolicy(breaker.Stage[R](h.Breaker()), nil)
}

// RateLimit returns the rate limiter that h reads as a failsafe-go policy.
// Each attempt takes a permit, waiting for it on the registry's clock up to
// MaxWait.
//
// A nil h makes a Policy whose executions fail with [ErrNoInstance].
func RateLimit[R any](h *ratelimit.Handle) *Policy[R] {
	if h == nil {
		return broken[R]()
	}
	return newPolicy(ratelimit.Stage[R](h.Limiter()), nil)
}

func newPolicy[R any](link policy.Link[R], limit *adaptivelimit.Limiter) *Policy[R] {
	p := &Policy[R]{ex: executor[R]{link: link, limit: limit, fn: runCall[R]}}
	if limit != nil {
		p.ex.waits = limit.Handle().Config().MaxWait > 0
	}
	p.ex.Executor = &p.ex
	return p
}

func broken[R any]() *Policy[R] {
	p := &Policy[R]{ex: executor[R]{}}
	p.ex.Executor = &p.ex
	return p
}

// ToExecutor returns the policy's executor, the same every time. failsafe-go
// calls it when it composes an execution.
func (p *Policy[R]) ToExecutor(R) any { return &p.ex }

// ResultAgnostic marks the policy as one that neither provides nor changes
// results, so that failsafe-go lets it compose with policies of any result
// type (failsafe.WithAny, Executor.ComposeAny, with R = any).
func (p *Policy[R]) ResultAgnostic() {}

// executor is the failsafe-go policy.Executor of a Policy. It keeps no
// per-call state, so one serves every execution.
type executor[R any] struct {
	fspolicy.BaseExecutor[R]
	link  policy.Link[R]         // nil for a Policy made from a nil handle
	limit *adaptivelimit.Limiter // for check-only executions; nil but for AdaptiveLimit
	waits bool                   // the limit has a MaxWait
	fn    func(context.Context) (R, error)
	// seams caches the failsafe-go form of the instance's rejections: one
	// per distinct rejection error (a breaker has three).
	seams [3]atomic.Pointer[Error]
}

// Apply implements failsafe-go's policy.Executor: the returned function
// runs one attempt of the inner function through the r4c stage.
func (e *executor[R]) Apply(inner func(failsafe.Execution[R]) *common.PolicyResult[R]) func(failsafe.Execution[R]) *common.PolicyResult[R] {
	return func(exec failsafe.Execution[R]) *common.PolicyResult[R] {
		return e.run(exec, inner)
	}
}

// call is one attempt: the context the stage passes inward, carrying what
// the function needs to run the inner policies, and what they returned.
type call[R any] struct {
	context.Context
	exec  failsafe.Execution[R]
	inner func(failsafe.Execution[R]) *common.PolicyResult[R]
	res   *common.PolicyResult[R] // set once inner returned
}

type callKey struct{}

// Value returns the call for callKey (so that the function finds it even if
// a stage passed a derived context inward), else the parent's value.
func (c *call[R]) Value(key any) any {
	if key == (callKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// runCall is the function at the end of the stage: it runs the inner
// policies, keeps their result, and returns it to the stage with the error
// seen as r4c classifies it.
func runCall[R any](ctx context.Context) (R, error) {
	c, ok := ctx.(*call[R])
	if !ok {
		c = ctx.Value(callKey{}).(*call[R])
	}
	res := c.inner(c.exec)
	if res == nil {
		res = &common.PolicyResult[R]{Done: true, Success: true, SuccessAll: true}
	}
	c.res = res
	return res.Result, asOurs(res.Error)
}

func (e *executor[R]) run(exec failsafe.Execution[R], inner func(failsafe.Execution[R]) *common.PolicyResult[R]) *common.PolicyResult[R] {
	ei := exec.(fspolicy.ExecutionInternal[R])
	if e.link == nil {
		return &common.PolicyResult[R]{Error: ErrNoInstance, Done: true}
	}
	ctx := exec.Context()
	if e.limit != nil && ctx.Value(fspolicy.CheckOnlyKey) != nil {
		return e.check(ei, inner)
	}
	c := &call[R]{Context: ctx, exec: exec, inner: inner}
	_, _, err := e.link.Run(c, policy.NewNext[R](nil, e.fn, nil))
	if c.res != nil {
		return e.PostExecute(ei, c.res)
	}
	// The function was not called: rejected, or cancelled while waiting.
	if canceled, res := ei.IsCanceledWithResult(); canceled {
		return res
	}
	return &common.PolicyResult[R]{Error: e.seam(err), Done: true}
}

// check serves a check-only execution of an adaptive limit: it takes a
// slot at the context's priority and frees it at once, with no sample. It
// never waits: with MaxWait set it takes a free slot or rejects.
func (e *executor[R]) check(ei fspolicy.ExecutionInternal[R], inner func(failsafe.Execution[R]) *common.PolicyResult[R]) *common.PolicyResult[R] {
	var p adaptivelimit.Permit
	var err error
	if e.waits {
		ok := false
		if p, ok = e.limit.TryAcquire(); !ok {
			err = e.checkErr()
		}
	} else {
		p, err = e.limit.Acquire(ei.Context())
	}
	if err != nil {
		return &common.PolicyResult[R]{Error: e.seam(err), Done: true}
	}
	e.limit.Release(p, adaptivelimit.OutcomeIgnore)
	return e.PostExecute(ei, inner(ei))
}

// checkErr returns the rejection of a check-only execution that found no
// free slot under MaxWait, where the limiter's Acquire would wait: the
// instance's own error if a rejection has shown it already, else an error
// matching the same sentinels.
func (e *executor[R]) checkErr() error {
	if s := e.seams[0].Load(); s != nil {
		return s.errs[0]
	}
	return errCheckFull
}

var errCheckFull = newError(adaptivelimit.ErrLimitExceeded, policy.ErrRejected, adaptivelimiter.ErrExceeded)

// seam returns err, a rejection by the r4c stage, as failsafe-go sees it
// (an [Error] matching both libraries' sentinels); other errors (a ctx
// error from a wait) are returned as they are.
func (e *executor[R]) seam(err error) error {
	if err == errCheckFull || !isOurRejection(err) {
		return err
	}
	for i := range e.seams {
		s := e.seams[i].Load()
		if s == nil {
			s = newError(err, ourSentinel(err))
			if e.seams[i].CompareAndSwap(nil, s) {
				return s
			}
			s = e.seams[i].Load()
		}
		if s.errs[0] == err {
			return s
		}
	}
	return newError(err, ourSentinel(err))
}

// isOurRejection reports whether err is one of the preallocated rejection
// errors of r4c's four policies (compared by identity to cache their seam
// form).
func isOurRejection(err error) bool {
	switch err.(type) {
	case *adaptivelimit.LimitExceededError, *bulkhead.BulkheadFullError, *breaker.OpenError, *ratelimit.RateLimitedError:
		return true
	}
	return false
}
