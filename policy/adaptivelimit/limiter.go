package adaptivelimit

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

// Limiter is an adaptive concurrency limit: at most Limit calls hold a slot
// at once, and the limit is recomputed from the calls' latencies and drops
// at the end of each window (see the package documentation).
//
// A Limiter is safe for concurrent use; make one with [New]. Use it
// standalone with [Limiter.Acquire] or [Limiter.TryAcquire] and
// [Limiter.Release], or in a pipeline through [Stage]. It starts no
// goroutine: windows end on the goroutine of the call that completes them.
type Limiter struct {
	_   [padSize]byte
	hot hotState
	_   [2*padSize - hotStateSize]byte

	rejections  atomic.Int64
	ignored     atomic.Int64 // slots given back without a sample
	rejectEvent events.Event // the CallRejected event, boxed once
	// winDrops counts the drops of the current window (roughly: it is
	// reset without stopping them) and dropTrip is how many end it early;
	// only drops touch them, and only with Little (earlyEnd).
	winDrops atomic.Int64
	dropTrip atomic.Int64
	_        [padSize - 32]byte

	// Set by New, read-only afterwards.
	cfg      Config
	clock    policy.Clock
	bus      *events.Bus
	instance string
	err      *LimitExceededError
	stripes  []stripe
	shift    uint8 // 64 - log2(len(stripes)), for stripeIndex
	disabled bool
	waitOn   bool
	earlyEnd bool // a window may end before the reference's rules say (Little): on drops, or on two samples a slot
	handle   *Handle

	mu  sync.Mutex // guards win; the window's recompute only ever TryLocks it
	win windowState

	wmu    sync.Mutex   // guards queues and the waiters in them
	queues [3][]*waiter // waiting calls per priority rank, oldest first
}

// padSize keeps the contended fields on cache lines of their own (two lines,
// against adjacent-line prefetching).
const padSize = 128

// hotState is what every admitted call touches: the word every call
// writes, on cache lines of its own, then the read-mostly fields, on lines
// of their own, so that reading them does not miss each time another core
// has just written the word.
type hotState struct {
	// word holds the calls in flight in its low 32 bits and the number of
	// samples recorded so far (wrapping) in its high 32 bits, so that a call
	// frees its slot and counts its sample with one atomic add.
	word atomic.Uint64
	_    [padSize - 8]byte

	// lim holds the limit in its low 32 bits and the low-priority limit in
	// its high 32 bits.
	lim atomic.Uint64
	// windowEnd is the clock reading at which the current window is over.
	windowEnd atomic.Int64
	// maxIF is the most calls seen in flight in the current window.
	maxIF atomic.Uint32
	// waiting counts the calls queued for a slot (MaxWait).
	waiting atomic.Int32
}

const hotStateSize = padSize + 24

// stripe accumulates samples. A call picks its stripe from the address of
// its goroutine's stack (see stripeIndex), so that each goroutine keeps
// writing the same line and concurrent goroutines mostly write different
// ones.
// The sums only grow; a window's figures are differences of two readings.
type stripe struct {
	sum   atomic.Int64 // latency of the samples recorded here, in nanoseconds
	drops atomic.Int64 // samples recorded here that were drops
	// dropSum is the latency of those drops: Little tells the latency of
	// the calls that succeed from that of the ones that time out.
	dropSum atomic.Int64
	_       [padSize - 24]byte
}

// sampleInc, added to hotState.word, frees a slot and counts a sample.
const sampleInc = 1<<32 - 1

// releaseInc, added to hotState.word, frees a slot.
const releaseInc = ^uint64(0)

// New returns a Limiter for cfg, after filling the unset fields with
// [Config.WithDefaults]. If the result breaks a rule, New returns the
// [*policy.FieldError] from [Config.Validate], unwrapped, and no Limiter.
// The first window opens now, on env's clock (env.ClockOrSystem); the
// limit's events go to env.Events under the id env.Instance.
func New(cfg Config, env policy.Env) (*Limiter, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.DropOn = append([]error(nil), cfg.DropOn...)
	n, shift := 16, uint8(64-4)
	for n < 4*runtime.GOMAXPROCS(0) && n < 64 {
		n *= 2
		shift--
	}
	l := &Limiter{
		cfg:      cfg,
		clock:    env.ClockOrSystem(),
		bus:      env.Events,
		instance: env.Instance,
		err:      newLimitExceededError(env.Instance),
		stripes:  make([]stripe, n),
		shift:    shift,
		disabled: cfg.Disabled,
		waitOn:   cfg.MaxWait > 0,
		earlyEnd: cfg.Algorithm == Little,
	}
	l.handle = &Handle{l: l}
	// Boxed once, so that publishing a rejection allocates nothing.
	l.rejectEvent = events.CallRejected{Policy: "adaptivelimit", Instance: env.Instance, Err: l.err}
	now := l.clock.Nanotime()
	l.win.init(&cfg, now)
	l.hot.lim.Store(l.packLimit(cfg.InitialLimit))
	l.hot.windowEnd.Store(now + int64(cfg.Window))
	l.dropTrip.Store(int64(dropTrip(&cfg, cfg.InitialLimit)))
	return l, nil
}

// storeLimit publishes limit to the calls. l.mu must be held. Once it
// returns, no call is admitted on the limit of before: an admission reads
// the word, then lim, then swaps the word for itself plus one, and
// storeLimit moves the word after it stores lim, so that the swap of one
// that read the old lim fails and it reads again. The move is a phantom
// sample, which the window's base takes out of its count at once.
func (l *Limiter) storeLimit(limit int) {
	l.hot.lim.Store(l.packLimit(limit))
	l.hot.word.Add(1 << 32)
	l.win.baseSamples++
}

// packLimit returns the lim word for limit.
func (l *Limiter) packLimit(limit int) uint64 {
	low := max(1, int(l.cfg.LowPriorityShare*float64(limit))) // <= limit: the share is at most 1
	return uint64(low)<<32 | uint64(limit)
}

// Outcome is how an admitted call ended, as far as the limit cares. The
// zero value is [OutcomeSuccess].
type Outcome uint8

// The outcomes.
const (
	// OutcomeSuccess: the call returned; its latency is a sample.
	OutcomeSuccess Outcome = iota
	// OutcomeDrop: the call failed with an overload signal (DropOn or
	// DropIf); its latency is a sample, marked as a drop.
	OutcomeDrop
	// OutcomeIgnore: the call failed for a reason that says nothing about
	// load, was cancelled by its caller, or panicked. The slot is freed and
	// nothing is recorded. Unknown Outcome values count as OutcomeIgnore.
	OutcomeIgnore
)

// String returns "success", "drop" or "ignore".
func (o Outcome) String() string {
	switch o {
	case OutcomeSuccess:
		return "success"
	case OutcomeDrop:
		return "drop"
	}
	return "ignore"
}

// Permit is a slot taken by [Limiter.Acquire] or [Limiter.TryAcquire], to
// be given back once with [Limiter.Release]. It is a small value: pass it
// by value, it allocates nothing. The zero Permit holds nothing and
// releasing it does nothing.
type Permit struct {
	start int64 // clock reading when the slot was taken
	slot  uint32
	kind  uint8
}

const (
	permitNone uint8 = iota
	permitHeld       // holds a slot
	permitPass       // the limit is disabled: nothing held
)

// Held reports whether p holds a slot (false for the zero Permit and for
// the permits of a disabled limit).
func (p Permit) Held() bool { return p.kind == permitHeld }

// TryAcquire takes a slot at normal priority if one is free, without
// waiting, and returns it with true. When every slot is taken (or calls are
// queued for one under MaxWait) it returns false and counts a rejection
// (and publishes events.CallRejected). It reads the clock once, when
// admitted, and allocates nothing. A disabled limit always admits.
func (l *Limiter) TryAcquire() (Permit, bool) {
	if l.disabled {
		return Permit{kind: permitPass}, true
	}
	n, ok := l.admit(context.Background())
	if !ok {
		l.rejected(context.Background())
		return Permit{}, false
	}
	return Permit{start: l.clock.Nanotime(), slot: n, kind: permitHeld}, true
}

// Acquire takes a slot for a call and returns it. ctx gives the call's
// priority ([WithPriority]). When every slot open to that priority is taken,
// Acquire returns the instance's [*LimitExceededError] at once, or, with a
// positive MaxWait, waits up to MaxWait for a slot (in priority order, then
// first come first served) and returns that error if none came. If ctx is
// done while waiting, Acquire returns ctx.Err() and holds nothing. It reads
// the clock once when admitted; the admitted and rejected paths allocate
// nothing and take no lock (waiting allocates). A disabled limit always
// admits.
func (l *Limiter) Acquire(ctx context.Context) (Permit, error) {
	if l.disabled {
		return Permit{kind: permitPass}, nil
	}
	n, ok := l.admit(ctx)
	if !ok {
		if !l.waitOn {
			l.rejected(ctx)
			return Permit{}, l.err
		}
		var err error
		if n, err = l.wait(ctx); err != nil {
			return Permit{}, err
		}
	}
	return Permit{start: l.clock.Nanotime(), slot: n, kind: permitHeld}, nil
}

// Release gives back the slot of p, recording the call's latency (from
// Acquire to now) as a sample when o is [OutcomeSuccess] or [OutcomeDrop].
// If that sample ends a window, Release recomputes the limit on the calling
// goroutine (and may publish events.LimitChanged). Release a permit exactly
// once: releasing more slots than were taken panics. Releasing the zero
// Permit, or a permit of a disabled limit, does nothing. Use
// [Limiter.Classify] to turn a call's error into an Outcome.
func (l *Limiter) Release(p Permit, o Outcome) {
	if p.kind != permitHeld {
		return
	}
	var end int64
	if o == OutcomeSuccess || o == OutcomeDrop {
		end = l.clock.Nanotime()
	}
	l.release(context.Background(), p, o, end)
}

// Classify returns the Outcome of a call that ended with err, made with
// ctx: [OutcomeSuccess] for a nil err; [OutcomeIgnore] for the caller's own
// cancellation ([policy.CallerCancelled]); [OutcomeDrop] for an error in
// DropOn (errors.Is) or accepted by DropIf; [OutcomeIgnore] otherwise.
func (l *Limiter) Classify(ctx context.Context, err error) Outcome {
	if err == nil {
		return OutcomeSuccess
	}
	return l.classifyErr(ctx, err)
}

func (l *Limiter) classifyErr(ctx context.Context, err error) Outcome {
	if policy.CallerCancelled(ctx, err) {
		return OutcomeIgnore
	}
	if policy.Matches(err, l.cfg.DropOn, l.cfg.DropIf) {
		return OutcomeDrop
	}
	return OutcomeIgnore
}

// admit takes a slot if the limit (or, for a low-priority ctx, its share)
// allows, and returns the number of calls that were in flight before. A
// full limit is refused here without a call; the ordinary admission is one
// CAS. The rest (retries of the CAS, the low-priority share, the queue of
// MaxWait) is in admitSlow.
func (l *Limiter) admit(ctx context.Context) (uint32, bool) {
	w := l.hot.word.Load()
	lim := l.hot.lim.Load()
	n := uint32(w)
	if n >= uint32(lim) {
		return n, false
	}
	if n < uint32(lim>>32) && !l.waitOn && l.hot.word.CompareAndSwap(w, w+1) {
		if n >= l.hot.maxIF.Load() {
			l.raiseMax(n + 1)
		}
		return n, true
	}
	return l.admitSlow(ctx)
}

// admitSlow is admit when the first attempt did not settle it. It reads
// ctx's priority only when the calls in flight reach the low-priority
// limit, and refuses while calls wait in the queue (they come first).
func (l *Limiter) admitSlow(ctx context.Context) (uint32, bool) {
	if l.waitOn && l.hot.waiting.Load() != 0 {
		return 0, false
	}
	for {
		w := l.hot.word.Load()
		n := uint32(w)
		lim := l.hot.lim.Load()
		if n >= uint32(lim>>32) && (n >= uint32(lim) || PriorityFrom(ctx) < 0) {
			return n, false
		}
		if l.hot.word.CompareAndSwap(w, w+1) {
			if n >= l.hot.maxIF.Load() {
				l.raiseMax(n + 1)
			}
			return n, true
		}
	}
}

// grab is admit for a given priority rank, ignoring the queue. The caller
// holds l.wmu.
func (l *Limiter) grab(rank int) (uint32, bool) {
	for {
		w := l.hot.word.Load()
		n := uint32(w)
		lim := l.hot.lim.Load()
		bound := uint32(lim)
		if rank == 0 {
			bound = uint32(lim >> 32)
		}
		if n >= bound {
			return n, false
		}
		if l.hot.word.CompareAndSwap(w, w+1) {
			if n >= l.hot.maxIF.Load() {
				l.raiseMax(n + 1)
			}
			return n, true
		}
	}
}

// raiseMax raises the window's most-in-flight figure to at least n.
//
//go:noinline
func (l *Limiter) raiseMax(n uint32) {
	for {
		m := l.hot.maxIF.Load()
		if n <= m || l.hot.maxIF.CompareAndSwap(m, n) {
			return
		}
	}
}

// rejected counts a rejection and publishes it with the call's ctx.
func (l *Limiter) rejected(ctx context.Context) {
	l.rejections.Add(1)
	if l.bus.Active() {
		l.publishRejected(ctx)
	}
}

//go:noinline
func (l *Limiter) publishRejected(ctx context.Context) {
	l.bus.PublishContext(ctx, l.rejectEvent)
}

// release frees p's slot; a success or a drop also records the latency up
// to end and, if the window is over, ends it (publishing a limit change
// with ctx, the ctx of the call that ended the window).
func (l *Limiter) release(ctx context.Context, p Permit, o Outcome, end int64) {
	if o != OutcomeSuccess && o != OutcomeDrop {
		l.ignored.Add(1)
		if uint32(l.hot.word.Add(releaseInc)) == math.MaxUint32 {
			l.overReleased(releaseInc)
		}
		if l.waitOn && l.hot.waiting.Load() != 0 {
			l.handoff()
		}
		return
	}
	lat := end - p.start
	if lat < 0 { // the clock was set back
		lat = 0
	}
	st := &l.stripes[l.stripeIndex()]
	st.sum.Add(lat)
	var trip bool
	if o == OutcomeDrop {
		st.drops.Add(1)
		st.dropSum.Add(lat)
		trip = l.earlyEnd && l.winDrops.Add(1) >= l.dropTrip.Load()
	}
	// The sum goes in before the count, so a window never counts a sample
	// whose latency it has not seen.
	if uint32(l.hot.word.Add(sampleInc)) == math.MaxUint32 {
		l.overReleased(sampleInc)
	}
	if l.waitOn && l.hot.waiting.Load() != 0 {
		l.handoff()
	}
	if end-l.hot.windowEnd.Load() >= 0 || trip {
		l.endWindow(ctx, end)
	}
}

// stripeIndex returns the stripe for a sample recorded by the calling
// goroutine: a hash of the address of its stack, which is the same from one
// call to the next (until the stack moves) and differs between goroutines
// (their stacks are at least 2 KiB apart). It is only a placement hint: any
// stripe is correct.
func (l *Limiter) stripeIndex() uint64 {
	var b byte
	sp := uint64(uintptr(unsafe.Pointer(&b))) >> 10
	return (sp * 0x9e3779b97f4a7c15) >> l.shift
}

func (l *Limiter) overReleased(delta uint64) {
	l.hot.word.Add(-delta)
	panic("adaptivelimit: released more slots than were acquired")
}
