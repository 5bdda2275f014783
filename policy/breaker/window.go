package breaker

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// An outcome code, as kept in a window: bit 0 marks a recorded call (so
// that 0 is an empty slot), bit 1 a failure and bit 2 a slow call.
const (
	codeCall uint32 = 1
	codeFail uint32 = 2
	codeSlow uint32 = 4
)

// Window figures are packed in one 64-bit word, 21 bits each: calls in bits
// 0-20, failures in 21-41, slow calls in 42-62. Each field carries a bias of
// 2^19 so that the lock-free count window, whose updates may land a moment
// out of order, never borrows from its neighbour while a field is briefly
// below its true value; with at most 10^6 calls per window, a field stays in
// range unless more than half a million updates are in flight at once.
const (
	fieldBits = 21
	fieldMask = 1<<fieldBits - 1
	fieldBias = 1 << 19
	biasWord  = fieldBias | fieldBias<<fieldBits | fieldBias<<(2*fieldBits)
)

// delta[code] is what an outcome adds to a packed word.
var delta = func() (d [8]uint64) {
	for c := uint32(1); c < 8; c++ {
		if c&codeCall == 0 {
			continue
		}
		d[c] = 1
		if c&codeFail != 0 {
			d[c] += 1 << fieldBits
		}
		if c&codeSlow != 0 {
			d[c] += 1 << (2 * fieldBits)
		}
	}
	return d
}()

// figures are a window's counts.
type figures struct{ calls, failures, slow int64 }

// unpack returns the figures of a packed word whose fields each carry bias
// (fieldBias or 0).
func unpack(w uint64, bias int64) figures {
	f := figures{
		calls:    int64(w&fieldMask) - bias,
		failures: int64(w>>fieldBits&fieldMask) - bias,
		slow:     int64(w>>(2*fieldBits)&fieldMask) - bias,
	}
	return f.clamp()
}

// clamp keeps figures read mid-update consistent: 0 <= failures, slow <= calls.
func (f figures) clamp() figures {
	f.calls = max(f.calls, 0)
	f.failures = min(max(f.failures, 0), f.calls)
	f.slow = min(max(f.slow, 0), f.calls)
	return f
}

// countWindow keeps the outcomes of the last size calls, lock-free. Each
// recorded call takes the next sequence number, swaps its code into the
// slot of that number (modulo size) and adds the difference with the code
// it replaced to the packed word. A call that replaces a code equal to its
// own (the steady state of a healthy dependency) leaves the word alone:
// two atomic operations in all.
type countWindow struct {
	seq   atomic.Uint64 // calls recorded
	word  atomic.Uint64 // packed figures, biased
	_     [48]byte
	size  uint64
	magic uint64 // for fastmod
	slots []atomic.Uint32
}

func newCountWindow(size int) *countWindow {
	w := &countWindow{size: uint64(size), magic: ^uint64(0)/uint64(size) + 1, slots: make([]atomic.Uint32, size)}
	w.word.Store(biasWord)
	return w
}

// add records code and returns the packed word after it, or false if the
// figures did not change.
func (w *countWindow) add(code uint32) (uint64, bool) {
	s := uint32(w.seq.Add(1) - 1)
	// s mod size by multiplication (Lemire's fastmod): exact for 32-bit s.
	// At the wrap of s every 2^32 calls one slot is reused out of turn.
	i, _ := bits.Mul64(w.magic*uint64(s), w.size)
	old := w.slots[i].Swap(code)
	if old == code {
		return 0, false
	}
	return w.word.Add(delta[code] - delta[old]), true
}

func (w *countWindow) figures() figures { return unpack(w.word.Load(), fieldBias) }

// timeBuckets is the number of buckets a time-based window is kept in.
const timeBuckets = 20

// timeWindow keeps the outcomes of the calls that ended in the last
// duration, in timeBuckets buckets. It takes a short mutex per recorded call.
type timeWindow struct {
	mu       sync.Mutex
	width    int64 // nanoseconds per bucket
	base     int64 // the reading bucket 0 starts at
	head     int64 // the newest bucket number
	buckets  [timeBuckets]figures
	total    figures
	recorded int64
}

func newTimeWindow(duration, base int64) *timeWindow {
	return &timeWindow{width: max(duration/timeBuckets, 1), base: base}
}

// bucket returns the number of the bucket holding the reading now.
func (w *timeWindow) bucket(now int64) int64 {
	rel := now - w.base
	n := rel / w.width
	if rel < 0 && rel%w.width != 0 {
		n--
	}
	return n
}

// advance moves the window so that bucket n is the newest, emptying the
// buckets that leave it. w.mu must be held.
func (w *timeWindow) advance(n int64) {
	if n <= w.head {
		return
	}
	if n-w.head >= timeBuckets {
		w.buckets = [timeBuckets]figures{}
		w.total = figures{}
	} else {
		for k := w.head + 1; k <= n; k++ {
			b := &w.buckets[k%timeBuckets]
			w.total.calls -= b.calls
			w.total.failures -= b.failures
			w.total.slow -= b.slow
			*b = figures{}
		}
	}
	w.head = n
}

// add records code at the reading now and returns the window's figures.
func (w *timeWindow) add(now int64, code uint32) figures {
	n := w.bucket(now)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advance(n)
	if n <= w.head-timeBuckets {
		return w.total // older than the window: nothing to record
	}
	b := &w.buckets[((n%timeBuckets)+timeBuckets)%timeBuckets]
	var f figures
	f.calls = 1
	if code&codeFail != 0 {
		f.failures = 1
	}
	if code&codeSlow != 0 {
		f.slow = 1
	}
	b.calls += f.calls
	b.failures += f.failures
	b.slow += f.slow
	w.total.calls += f.calls
	w.total.failures += f.failures
	w.total.slow += f.slow
	w.recorded++
	return w.total
}

// figures returns the window's figures at the reading now.
func (w *timeWindow) figures(now int64) figures {
	n := w.bucket(now)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advance(n)
	return w.total
}

func (w *timeWindow) count() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.recorded
}
