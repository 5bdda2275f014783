package clocktest

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// Start is the instant a new ManualClock reads: 2026-01-01 00:00:00 UTC.
// Treat it as a constant.
var Start = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// ManualClock is a [policy.Clock] whose time moves only through Advance and
// Set. Timers, AfterFunc functions and deadline contexts armed on it fire
// during the Advance or Set that reaches their instant, on the goroutine
// that moves the clock, in deadline order. It starts no goroutine.
//
// A ManualClock is safe for concurrent use: goroutines under test arm
// timers while the test advances. The zero value is not usable; call
// [NewManualClock].
type ManualClock struct {
	mu      sync.Mutex
	now     time.Time
	origin  time.Time
	timers  timerHeap
	seq     uint64
	changed chan struct{} // closed and replaced whenever the set of timers changes
}

var _ policy.Clock = (*ManualClock)(nil)

// NewManualClock returns a clock that reads [Start] (and a Nanotime of 0)
// until it is moved, with no timer armed.
func NewManualClock() *ManualClock {
	return &ManualClock{now: Start, origin: Start, changed: make(chan struct{})}
}

// Now returns the clock's current time. The result carries no monotonic
// reading.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Nanotime returns Now minus [Start] in nanoseconds: 0 for a new clock,
// moved by Advance and Set like Now (negative after a Set before Start).
func (c *ManualClock) Nanotime() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int64(c.now.Sub(c.origin))
}

// Advance moves the clock forward by d, firing every timer and deadline
// context due on the way, in deadline order (timers due at the same instant
// fire in the order they were armed). While a timer fires, Now reads its
// deadline. A negative d is treated as zero.
func (c *ManualClock) Advance(d time.Duration) {
	if d < 0 {
		d = 0
	}
	c.mu.Lock()
	target := c.now.Add(d)
	c.mu.Unlock()
	c.moveTo(target)
}

// Set moves the clock to t, firing due timers like Advance. Setting a time
// before the current one moves the clock back and fires nothing; armed
// timers keep their instants, so they fire once the clock reaches them
// again.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	if t.Before(c.now) {
		c.now = t
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.moveTo(t)
}

func (c *ManualClock) moveTo(target time.Time) {
	for {
		c.mu.Lock()
		if len(c.timers) == 0 || c.timers[0].when.After(target) {
			c.now = target
			c.mu.Unlock()
			return
		}
		t := heap.Pop(&c.timers).(*manualTimer)
		t.index = -1
		if t.when.After(c.now) {
			c.now = t.when
		}
		now := c.now
		c.notifyLocked()
		c.mu.Unlock()
		t.fire(now) // outside the lock: a fired deadline cancels contexts and runs their AfterFuncs
	}
}

// Pending returns how many timers, AfterFunc functions and deadline
// contexts are armed: made, neither fired nor stopped (or cancelled).
func (c *ManualClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// BlockUntil waits until at least n timers, AfterFunc functions or deadline
// contexts are armed on the clock (as counted by Pending), or ctx is done
// (then it returns ctx.Err()). It returns nil at once if n are already
// armed. A test calls it to know that a goroutine has reached its wait
// before advancing the clock, instead of sleeping and hoping.
func (c *ManualClock) BlockUntil(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		if len(c.timers) >= n {
			c.mu.Unlock()
			return nil
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// NewTimer returns a timer that fires once the clock has advanced by d:
// its channel (buffered, of capacity 1) receives the timer's deadline. A
// d <= 0 fires at once and arms nothing. Stop releases an armed timer.
func (c *ManualClock) NewTimer(d time.Duration) policy.Timer {
	t := &manualTimer{clock: c, ch: make(chan time.Time, 1), index: -1}
	c.schedule(t, d)
	return t
}

// AfterFunc arranges for f to run on the goroutine that advances the clock
// once it has advanced by d; a d <= 0 runs f at once on the calling
// goroutine. It returns a timer whose Stop cancels f and whose C is nil. f
// may arm timers and read the clock (Now reads f's deadline); a timer it
// arms that falls due within the same Advance fires in it too.
func (c *ManualClock) AfterFunc(d time.Duration, f func()) policy.Timer {
	t := &manualTimer{clock: c, fn: f, index: -1}
	c.schedule(t, d)
	return t
}

func (c *ManualClock) schedule(t *manualTimer, d time.Duration) {
	c.mu.Lock()
	t.when = c.now.Add(d)
	if d <= 0 {
		now := c.now
		c.mu.Unlock()
		t.fire(now)
		return
	}
	c.seq++
	t.seq = c.seq
	heap.Push(&c.timers, t)
	c.notifyLocked()
	c.mu.Unlock()
}

func (c *ManualClock) stop(t *manualTimer) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.index < 0 {
		return false
	}
	heap.Remove(&c.timers, t.index)
	t.index = -1
	c.notifyLocked()
	return true
}

// notifyLocked wakes BlockUntil callers. c.mu must be held.
func (c *ManualClock) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

type manualTimer struct {
	clock *ManualClock
	when  time.Time
	seq   uint64
	index int // position in the heap, -1 when not armed
	ch    chan time.Time
	fn    func()
}

func (t *manualTimer) C() <-chan time.Time { return t.ch }
func (t *manualTimer) Stop() bool          { return t.clock.stop(t) }

func (t *manualTimer) fire(now time.Time) {
	if t.fn != nil {
		t.fn()
		return
	}
	select {
	case t.ch <- now:
	default:
	}
}

type timerHeap []*manualTimer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].when.Equal(h[j].when) {
		return h[i].seq < h[j].seq
	}
	return h[i].when.Before(h[j].when)
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *timerHeap) Push(x any) {
	t := x.(*manualTimer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return t
}
