package breaker

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

// Breaker is a circuit breaker: it lets calls through while their failure
// and slow-call rates stay below their thresholds, refuses them for a while
// (open) when a rate reaches its threshold, then lets a few trial calls
// through (half-open) to decide whether to close again. Make one with
// [New]; use it in a pipeline through [Stage], or on its own with
// [Breaker.Do] or [Breaker.Allow] and [Breaker.Record].
//
// A Breaker is safe for concurrent use. It starts no goroutine: the move
// from open to half-open happens on the first call after OpenFor. Each
// state lives in an epoch of its own, made at the transition into it; a
// call records its outcome only if the epoch that admitted it is still
// current, so outcomes that straddle a transition are dropped. The closed
// state's count-based window is lock-free; a time-based window takes a
// short mutex per recorded call. Listeners of state changes never run under
// a lock.
type Breaker struct {
	cur atomic.Pointer[epoch]
	_   [56]byte

	notPermitted atomic.Int64 // calls refused since New or Reset
	retired      atomic.Int64 // calls recorded in epochs that ended
	failed       atomic.Int64 // calls recorded as failures since New
	ignoredCalls atomic.Int64 // calls ignored since New
	_            [32]byte

	mu        sync.Mutex // serialises setters; guards cfg
	cfg       Config     // as built or last set, defaults filled in
	clock     policy.Clock
	bus       *events.Bus
	instance  string
	openErr   *OpenError
	forcedErr *OpenError
	halfErr   *OpenError

	windowType WindowType
	windowSize int
	windowDur  int64
	th         atomic.Pointer[thresholds] // the live settings; a setter swaps them
	recordOn   []error
	recordIf   func(error) bool
	ignoreOn   []error
	ignoreIf   func(error) bool
}

// epoch is one stay in a state. Its pointer is the breaker's generation: a
// transition installs a new epoch with a compare-and-swap.
type epoch struct {
	state State
	since int64 // the reading at the transition into the state

	count *countWindow // closed, count-based
	timed *timeWindow  // closed, time-based

	trials    atomic.Int64  // half-open: trial permits taken and not given back
	halfCalls int64         // half-open: the trial calls of this stay, fixed when it began
	ho        atomic.Uint64 // half-open: packed figures of the trials that ended (no bias)
}

// recorded returns the number of calls recorded in e.
func (e *epoch) recorded() int64 {
	switch {
	case e.count != nil:
		return int64(e.count.seq.Load())
	case e.timed != nil:
		return e.timed.count()
	case e.state == StateHalfOpen:
		return unpack(e.ho.Load(), 0).calls
	}
	return 0
}

// New returns a Breaker configured by cfg (after [Config.WithDefaults]),
// reading env's clock and publishing on env's bus. It starts closed, or
// disabled when cfg.Disabled is set. It returns cfg's first violation as a
// *policy.FieldError, unwrapped; it never panics.
func New(cfg Config, env policy.Env) (*Breaker, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Breaker{
		cfg:        cfg,
		clock:      env.ClockOrSystem(),
		bus:        env.Events,
		instance:   env.Instance,
		openErr:    newOpenError(env.Instance, StateOpen),
		forcedErr:  newOpenError(env.Instance, StateForcedOpen),
		halfErr:    newOpenError(env.Instance, StateHalfOpen),
		windowType: cfg.WindowType,
		windowSize: cfg.WindowSize,
		windowDur:  int64(cfg.WindowDuration),
		recordOn:   cfg.RecordOn,
		recordIf:   cfg.RecordIf,
		ignoreOn:   cfg.IgnoreOn,
		ignoreIf:   cfg.IgnoreIf,
	}
	b.th.Store(newThresholds(&cfg))
	state := StateClosed
	if cfg.Disabled {
		state = StateDisabled
	}
	b.cur.Store(b.newEpoch(state, b.clock.Nanotime()))
	return b, nil
}

func (b *Breaker) newEpoch(s State, now int64) *epoch {
	e := &epoch{state: s, since: now}
	if s == StateHalfOpen {
		e.halfCalls = b.th.Load().halfCalls
	}
	if s == StateClosed {
		if b.windowType == TimeBased {
			e.timed = newTimeWindow(b.windowDur, now)
		} else {
			e.count = newCountWindow(b.windowSize)
		}
	}
	return e
}

// Permit is a call's admission by [Breaker.Allow], to be handed back to
// [Breaker.Record] when the call ends. It is a small value; the zero Permit
// (given while the breaker is disabled) records nothing.
type Permit struct {
	e     *epoch
	start int64
}

// outcome is how a call's end counts.
type outcome uint8

const (
	success outcome = iota
	failure
	ignored
)

// classify returns how the error of a call counts: the caller's own
// cancellation and IgnoreOn/IgnoreIf are ignored; then, when RecordOn or
// RecordIf is set, only what they match is a failure; else every error is.
func (b *Breaker) classify(ctx context.Context, err error) outcome {
	if err == nil {
		return success
	}
	if policy.CallerCancelled(ctx, err) || policy.Matches(err, b.ignoreOn, b.ignoreIf) {
		return ignored
	}
	if len(b.recordOn) == 0 && b.recordIf == nil {
		return failure
	}
	if policy.Matches(err, b.recordOn, b.recordIf) {
		return failure
	}
	return success
}

// admit decides on a call arriving at the reading now, in epoch e (the
// current one, loaded by the caller). It returns the refusal's error, or
// nil and the call's permit.
func (b *Breaker) admit(e *epoch, now int64) (Permit, *OpenError) {
	for {
		switch e.state {
		case StateClosed:
			return Permit{e, now}, nil
		case StateDisabled:
			return Permit{}, nil
		case StateForcedOpen:
			b.notPermitted.Add(1)
			return Permit{}, b.forcedErr
		case StateOpen:
			if now-e.since < b.th.Load().openFor {
				b.notPermitted.Add(1)
				return Permit{}, b.openErr
			}
			b.transition(e, StateHalfOpen, now)
		case StateHalfOpen:
			if w := b.th.Load().maxHalfWait; w > 0 && now-e.since >= w {
				b.transition(e, StateOpen, now)
				break
			}
			n := e.trials.Load()
			if n >= e.halfCalls {
				b.notPermitted.Add(1)
				return Permit{}, b.halfErr
			}
			if e.trials.CompareAndSwap(n, n+1) {
				return Permit{e, now}, nil
			}
		}
		e = b.cur.Load()
	}
}

// finish records the outcome of the call admitted with p, which ended at
// the reading end, and moves the breaker if a threshold says so.
func (b *Breaker) finish(p Permit, o outcome, end int64) {
	e := p.e
	if e == nil || b.cur.Load() != e {
		return // disabled, or the call straddled a transition: dropped
	}
	if o == ignored {
		b.ignoredCalls.Add(1)
		if e.state == StateHalfOpen {
			e.trials.Add(-1) // give the trial permit back
		}
		return
	}
	code := codeCall
	if o == failure {
		code |= codeFail
		b.failed.Add(1)
	}
	th := b.th.Load()
	if end-p.start > th.slowDur {
		code |= codeSlow
	}
	switch {
	case e.count != nil:
		w, changed := e.count.add(code)
		if changed && th.trips(unpack(w, fieldBias), th.minCalls) {
			b.transition(e, StateOpen, end)
		}
	case e.timed != nil:
		if th.trips(e.timed.add(end, code), th.minCalls) {
			b.transition(e, StateOpen, end)
		}
	case e.state == StateHalfOpen:
		f := unpack(e.ho.Add(delta[code]), 0)
		if f.calls == e.halfCalls { // the last trial: exactly one call sees it
			if th.trips(f, e.halfCalls) {
				b.transition(e, StateOpen, end)
			} else {
				b.transition(e, StateClosed, end)
			}
		}
	}
}

// trips reports whether figures f, with at least min calls, reach a threshold.
func (t *thresholds) trips(f figures, min int64) bool {
	if f.calls < min || f.calls == 0 {
		return false
	}
	// The thresholds are fractions; a division rounds a/b and the
	// threshold's decimal alike, so 3 of 10 reaches 0.3 exactly.
	c := float64(f.calls)
	return float64(f.failures)/c >= t.failThr || float64(f.slow)/c >= t.slowThr
}

// transition moves the breaker from epoch from to a new epoch in state to,
// entered at the reading now, unless another goroutine moved it first. It
// publishes the change after the move, holding no lock.
func (b *Breaker) transition(from *epoch, to State, now int64) bool {
	next := b.newEpoch(to, now)
	if !b.cur.CompareAndSwap(from, next) {
		return false
	}
	b.retired.Add(from.recorded())
	b.published(from.state, to)
	return true
}

// force moves the breaker to a new epoch in state to, whatever the current
// one, and returns the state it left.
func (b *Breaker) force(to State) State {
	now := b.clock.Nanotime()
	for {
		from := b.cur.Load()
		if b.transition(from, to, now) {
			return from.state
		}
	}
}

func (b *Breaker) published(from, to State) {
	if from != to && b.bus.Active() {
		b.bus.Publish(events.BreakerStateChanged{Instance: b.instance, From: from.String(), To: to.String()})
	}
}

// refused publishes the refusal of a call made with ctx.
func (b *Breaker) refused(ctx context.Context, err *OpenError) {
	if b.bus.Active() {
		b.bus.PublishContext(ctx, err.event)
	}
}

// Allow asks to make one call now. It returns the call's permit, or a
// *[OpenError] (matching [ErrOpen] and policy.ErrRejected) if the breaker
// refuses it; then the call must not be made. Every permit must be handed
// to [Breaker.Record] when the call ends. Allow reads the clock once and
// allocates nothing.
func (b *Breaker) Allow() (Permit, error) {
	e := b.cur.Load()
	if e.state == StateDisabled {
		return Permit{}, nil
	}
	p, err := b.admit(e, b.clock.Nanotime())
	if err != nil {
		b.refused(context.Background(), err)
		return Permit{}, err
	}
	return p, nil
}

// Record records the end of the call admitted with p, which returned err,
// now (it reads the clock once). A nil err is a success; the caller's own
// cancellation (ctx is done and err is its error) and the errors of
// IgnoreOn/IgnoreIf are ignored; other errors are failures, or successes
// when RecordOn/RecordIf are set and do not match them. Record allocates
// nothing; a zero Permit records nothing. If RecordIf or IgnoreIf panics,
// the call is recorded as a failure (a half-open trial permit is never
// left taken) and the panic goes on.
func (b *Breaker) Record(ctx context.Context, p Permit, err error) {
	if p.e == nil {
		return
	}
	end := b.clock.Nanotime()
	if err == nil {
		b.finish(p, success, end)
		return
	}
	judged := false
	defer b.failOnPanic(&judged, p)
	o := b.classify(ctx, err)
	judged = true
	b.finish(p, o, end)
}

// failOnPanic is deferred by a call that holds p until *done is set: if the
// call (or a predicate judging it) panicked before, it records a failure
// and lets the panic go on. A listener that panics while the failure is
// recorded does not replace the first panic: the first one goes on.
func (b *Breaker) failOnPanic(done *bool, p Permit) {
	if *done {
		return
	}
	r := recover() // nil for runtime.Goexit, which goes on by itself
	func() {
		defer func() {
			if r == nil {
				return // let a listener's panic out: there is no first one
			}
			_ = recover()
		}()
		b.finish(p, failure, b.clock.Nanotime())
	}()
	if r != nil {
		panic(r)
	}
}

// Do makes one call through the breaker: it returns the breaker's
// *[OpenError] without calling fn if the breaker refuses it, else fn's
// error, after recording it (the latency is fn's, read on the clock before
// and after). A panic in fn is recorded as a failure and goes on. Do
// allocates nothing.
func (b *Breaker) Do(ctx context.Context, fn func(context.Context) error) error {
	e := b.cur.Load()
	if e.state == StateDisabled {
		return fn(ctx)
	}
	p, oerr := b.admit(e, b.clock.Nanotime())
	if oerr != nil {
		b.refused(ctx, oerr)
		return oerr
	}
	if p.e == nil {
		return fn(ctx)
	}
	ended := false
	defer b.failOnPanic(&ended, p)
	err := fn(ctx)
	o := success
	if err != nil {
		o = b.classify(ctx, err) // a panic in RecordIf or IgnoreIf is a failure
	}
	ended = true
	b.finish(p, o, b.clock.Nanotime())
	return err
}

// State returns the breaker's current state. It moves nothing: an open
// breaker whose OpenFor has passed reads open until a call arrives.
func (b *Breaker) State() State { return b.cur.Load().state }

// TransitionToClosed closes the breaker with an empty window.
func (b *Breaker) TransitionToClosed() { b.force(StateClosed) }

// TransitionToOpen opens the breaker; it lets trial calls through once
// OpenFor has passed.
func (b *Breaker) TransitionToOpen() { b.force(StateOpen) }

// TransitionToHalfOpen moves the breaker to half-open with every trial
// permit free.
func (b *Breaker) TransitionToHalfOpen() { b.force(StateHalfOpen) }

// TransitionToDisabled disables the breaker: it admits every call and
// records nothing until another transition.
func (b *Breaker) TransitionToDisabled() { b.force(StateDisabled) }

// TransitionToForcedOpen forces the breaker open: it refuses every call
// until another transition.
func (b *Breaker) TransitionToForcedOpen() { b.force(StateForcedOpen) }

// Reset closes the breaker with an empty window and sets its totals
// (NotPermitted, Calls) back to zero.
func (b *Breaker) Reset() {
	b.force(StateClosed)
	b.notPermitted.Store(0)
	b.retired.Store(0)
}

// thresholds are the breaker's live settings: read at each evaluation, and
// swapped whole by a setter.
type thresholds struct {
	minCalls    int64 // for the closed window (at most windowSize when count-based)
	failThr     float64
	slowThr     float64
	slowDur     int64
	openFor     int64
	halfCalls   int64
	maxHalfWait int64
}

func newThresholds(cfg *Config) *thresholds {
	t := &thresholds{
		minCalls:    int64(cfg.MinimumCalls),
		failThr:     cfg.FailureRateThreshold,
		slowThr:     cfg.SlowCallRateThreshold,
		slowDur:     int64(cfg.SlowCallDuration),
		openFor:     int64(cfg.OpenFor),
		halfCalls:   int64(cfg.HalfOpenCalls),
		maxHalfWait: int64(cfg.MaxHalfOpenWait),
	}
	if cfg.WindowType == CountBased && t.minCalls > int64(cfg.WindowSize) {
		t.minCalls = int64(cfg.WindowSize)
	}
	return t
}
