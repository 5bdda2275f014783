package bulkhead

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

// Bulkhead limits how many calls run at the same time to MaxConcurrent.
// It is the core of the policy, usable on its own ([Bulkhead.TryAcquire],
// [Bulkhead.Acquire], [Bulkhead.Release]) or in a chain through [Stage].
//
// A Bulkhead is safe for concurrent use. Taking a free slot and giving it
// back are lock-free (a CAS and an atomic add) and allocate nothing; only a
// call that has to wait takes a mutex and allocates its place in the queue
// and a timer. Waiters get slots in arrival order. Make a Bulkhead with
// [New]; the zero value is not usable.
type Bulkhead struct {
	rejectEvent events.Event // the CallRejected event, boxed once
	cmu         sync.Mutex   // serialises setters; guards cfg
	cfg         Config       // as built or last set, defaults filled in; for the handle
	// inFlight holds, in its low 32 bits, the slots held (slots handed to
	// waiters included) and, in its high 32 bits, how many times a setter
	// changed max: see setMax.
	inFlight atomic.Uint64
	waiting  atomic.Int64 // waiters queued; mirrors the queue's length
	max      atomic.Int64 // MaxConcurrent; a setter may change it
	maxWait  time.Duration
	disabled bool
	clock    policy.Clock
	bus      *events.Bus
	instance string
	err      *BulkheadFullError

	rejections atomic.Uint64

	mu         sync.Mutex // guards the queue; see handOffLocked for how it meets the lock-free path
	head, tail *waiter
}

// waiter is a call queued for a slot. ready is closed, under mu, when the
// waiter is given a slot; at the same moment it leaves the queue.
type waiter struct {
	ready      chan struct{}
	prev, next *waiter
}

// New returns the bulkhead that cfg describes, waiting on env's clock,
// publishing on env.Events and naming env.Instance in its errors. cfg is
// defaulted with [Config.WithDefaults] and checked with [Config.Validate],
// whose [*policy.FieldError] New returns as it is. New never panics.
func New(cfg Config, env policy.Env) (*Bulkhead, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Bulkhead{
		cfg:      cfg,
		maxWait:  cfg.MaxWait,
		disabled: cfg.Disabled,
		clock:    env.ClockOrSystem(),
		bus:      env.Events,
		instance: env.Instance,
		err:      newFullError(env.Instance, cfg.MaxConcurrent),
	}
	// Boxed once, so that publishing a rejection allocates nothing.
	b.max.Store(int64(cfg.MaxConcurrent))
	b.rejectEvent = events.CallRejected{Policy: "bulkhead", Instance: env.Instance, Err: b.err}
	return b, nil
}

// TryAcquire takes a slot if one is free and no call is waiting for one,
// and reports whether it did. It never blocks and allocates nothing. A false
// counts as a rejection (see [Snapshot].Rejections) and publishes an
// events.CallRejected. A disabled bulkhead always returns true and counts
// nothing. A true must be followed by exactly one [Bulkhead.Release].
func (b *Bulkhead) TryAcquire() bool {
	if b.disabled || b.tryAcquire() {
		return true
	}
	b.reject(context.Background())
	return false
}

// Acquire takes a slot, waiting for one up to MaxWait if every slot is
// taken. It returns nil once it holds a slot, which the caller must give
// back with [Bulkhead.Release].
//
// If no slot is free at once and MaxWait is 0, or none came within MaxWait,
// Acquire returns the bulkhead's [*BulkheadFullError]. If ctx is done while
// it waits (or before it has to wait, or at the moment it is handed a
// slot), it returns ctx.Err() unchanged and holds nothing: the caller's
// cancellation is never reported as "full", and no call starts with a
// dead ctx. A free slot is taken at once without looking at ctx.
//
// Waiters are served first come, first served: a slot given back goes to
// the longest waiter, and no new call takes a slot while calls wait.
// Acquire allocates only when it has to wait.
func (b *Bulkhead) Acquire(ctx context.Context) error {
	if b.disabled || b.tryAcquire() {
		return nil
	}
	if b.maxWait <= 0 {
		return b.reject(ctx)
	}
	return b.wait(ctx)
}

// Release gives back a slot taken by [Bulkhead.TryAcquire] or
// [Bulkhead.Acquire]: to the longest waiter if a call waits, else to the
// pool of free slots. It never blocks on the fast path and allocates
// nothing. Releasing a slot that is not held panics. On a disabled bulkhead
// it does nothing.
func (b *Bulkhead) Release() {
	if !b.disabled {
		b.release()
	}
}

// MaxConcurrent returns the number of slots.
func (b *Bulkhead) MaxConcurrent() int { return int(b.max.Load()) }

// InFlight returns how many slots are held now.
func (b *Bulkhead) InFlight() int { return int(uint32(b.inFlight.Load())) }

// Waiting returns how many calls are waiting for a slot now.
func (b *Bulkhead) Waiting() int { return int(b.waiting.Load()) }

// tryAcquire takes a free slot with a CAS, unless calls are waiting: they
// come first.
func (b *Bulkhead) tryAcquire() bool {
	if b.waiting.Load() > 0 {
		return false
	}
	for {
		w := b.inFlight.Load() // before max: see setMax
		if int64(uint32(w)) >= b.max.Load() {
			return false
		}
		if b.inFlight.CompareAndSwap(w, w+1) {
			return true
		}
	}
}

// release gives back one slot.
//
// With nobody waiting it only decrements inFlight, lock-free. A waiter may
// have queued meanwhile without seeing the freed slot, so release looks at
// waiting again after the decrement and, if anyone waits, hands free slots
// out under mu. The waiter, for its part, increments waiting before it looks
// for a free slot (under mu, in wait). Both are sequentially consistent
// atomics, so at least one side sees the other: either release sees the
// waiter and hands the slot over, or the waiter's hand-off sees the slot.
// No slot stays free while a call waits for one.
func (b *Bulkhead) release() {
	if b.waiting.Load() == 0 {
		b.free()
		if b.waiting.Load() == 0 {
			return
		}
		b.mu.Lock()
		b.handOffLocked()
		b.mu.Unlock()
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.releaseLocked()
}

// releaseLocked gives back one slot: straight to the longest waiter (the
// slot changes hands, inFlight stays), else to the free pool. b.mu must be
// held.
func (b *Bulkhead) releaseLocked() {
	// The slot goes straight to the front waiter, unless MaxConcurrent was
	// lowered below the calls in flight: then it is freed, and the waiter
	// gets a slot once the calls in flight are below the new size.
	if int64(uint32(b.inFlight.Load())) <= b.max.Load() {
		if w := b.popLocked(); w != nil {
			close(w.ready)
			return
		}
	}
	b.free()
}

// free gives one slot back to the pool.
func (b *Bulkhead) free() {
	if uint32(b.inFlight.Add(^uint64(0))) == math.MaxUint32 {
		b.inFlight.Add(1)
		panic("bulkhead: released more than held")
	}
}

// handOffLocked gives free slots to the waiters at the front of the queue,
// taking each with the same CAS as tryAcquire. b.mu must be held.
func (b *Bulkhead) handOffLocked() {
	for b.head != nil {
		w := b.inFlight.Load() // before max: see setMax
		if int64(uint32(w)) >= b.max.Load() {
			return
		}
		if b.inFlight.CompareAndSwap(w, w+1) {
			close(b.popLocked().ready)
		}
	}
}

// wait queues the caller and waits up to maxWait for a slot.
func (b *Bulkhead) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w := &waiter{ready: make(chan struct{})}
	if testHookBeforeQueue != nil {
		testHookBeforeQueue()
	}
	b.mu.Lock()
	b.pushLocked(w)
	b.handOffLocked() // a slot freed since tryAcquire failed goes to the front waiter
	b.mu.Unlock()

	select {
	case <-w.ready:
		return b.check(ctx)
	default:
	}
	timer := b.clock.NewTimer(b.maxWait)
	if testHookWaiting != nil {
		testHookWaiting()
	}
	select {
	case <-w.ready:
		timer.Stop()
		return b.check(ctx)
	case <-ctx.Done():
		timer.Stop()
		return b.giveUp(ctx, w, ctx.Err())
	case <-timer.C():
		return b.giveUp(ctx, w, nil)
	}
}

// check runs when a waiter has been handed a slot. Its ctx may have been
// done at the same moment, and select picks either at random: like
// x/sync/semaphore, the waiter looks at its ctx again, and if it is done
// gives the slot back (to the next waiter, or to the free pool) and returns
// ctx.Err(), so that no call starts with a dead ctx.
func (b *Bulkhead) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		b.release()
		return err
	}
	return nil
}

// giveUp ends the wait of w, whose ctx is done (cerr is its error) or whose
// MaxWait passed (cerr is nil).
//
// A slot may have been handed to w at the same moment. Hand-offs close
// w.ready under mu and take w off the queue in the same critical section, so
// under mu either w got its slot already (ready is closed) or it never will
// (we take w off the queue). No slot is lost either way: a slot w got it
// keeps if only MaxWait passed (it still wants the call), and gives back if
// its ctx is done — the caller's cancellation came first as far as the
// caller can tell, so we prefer to fail, as x/sync/semaphore does, and the
// slot goes to the next waiter or back to the free pool.
func (b *Bulkhead) giveUp(ctx context.Context, w *waiter, cerr error) error {
	b.mu.Lock()
	select {
	case <-w.ready:
		if cerr == nil {
			b.mu.Unlock()
			return nil
		}
		b.releaseLocked()
		b.mu.Unlock()
		return cerr
	default:
		b.removeLocked(w)
		b.mu.Unlock()
	}
	if cerr != nil {
		return cerr
	}
	return b.reject(ctx)
}

// pushLocked queues w at the back. b.mu must be held.
func (b *Bulkhead) pushLocked(w *waiter) {
	w.prev = b.tail
	if b.tail != nil {
		b.tail.next = w
	} else {
		b.head = w
	}
	b.tail = w
	b.waiting.Add(1)
}

// popLocked takes the front waiter off the queue, or returns nil. b.mu must
// be held.
func (b *Bulkhead) popLocked() *waiter {
	w := b.head
	if w != nil {
		b.removeLocked(w)
	}
	return w
}

// removeLocked takes w off the queue. b.mu must be held and w queued.
func (b *Bulkhead) removeLocked(w *waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		b.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		b.tail = w.prev
	}
	w.prev, w.next = nil, nil
	b.waiting.Add(-1)
}

// testHookBeforeQueue, when set by a test, runs in wait between the failed
// tryAcquire and queueing: a test releases a slot there to force the race
// that release and handOffLocked resolve.
var testHookBeforeQueue func()

// testHookWaiting, when set by a test, runs in wait once the waiter is
// queued and its timer started, just before it waits.
var testHookWaiting func()

// reject counts a rejection, publishes it with the call's ctx and returns
// the preallocated error.
func (b *Bulkhead) reject(ctx context.Context) error {
	b.rejections.Add(1)
	if b.bus.Active() {
		b.bus.PublishContext(ctx, b.rejectEvent)
	}
	return b.err
}
