package retry

import (
	"math"
	"sync/atomic"
	"time"
)

// budgetBuckets is the number of buckets a budget window is kept in: the
// window slides by a tenth of BudgetWindow at a time.
const budgetBuckets = 10

// budget is a retry budget in the manner of Finagle's: over a sliding
// window, retries never exceed minRetries + ratio × calls, where calls
// counts first attempts. It is lock-free: each bucket is a pair of
// words, each holding a bucket number in its high 32 bits and a count in
// its low 32 bits, so that a bucket is reused for a later span of time by a
// single compare-and-swap.
//
// Deciding and withdrawing are two steps, so goroutines that decide at the
// same instant may overshoot the budget by their number; on one goroutine
// (and so on a ManualClock test) the budget is exact.
type budget struct {
	ratio      float64
	minRetries float64
	width      int64 // nanoseconds per bucket
	base       int64 // Nanotime reading bucket 0 starts at
	calls      [budgetBuckets]atomic.Uint64
	retries    [budgetBuckets]atomic.Uint64
}

func newBudget(ratio float64, window time.Duration, minRetries int, base int64) *budget {
	width := int64(window) / budgetBuckets
	if width < 1 {
		width = 1
	}
	return &budget{ratio: ratio, minRetries: float64(minRetries), width: width, base: base}
}

// bucket returns the number of the bucket that holds the instant now.
func (b *budget) bucket(now int64) uint32 {
	rel := now - b.base
	idx := rel / b.width
	if rel < 0 && rel%b.width != 0 {
		idx-- // floor, for readings before base
	}
	return uint32(idx)
}

// add counts one event at bucket e in the ring words.
func add(words *[budgetBuckets]atomic.Uint64, e uint32) {
	w := &words[e%budgetBuckets]
	for {
		old := w.Load()
		var next uint64
		switch d := int32(e - uint32(old>>32)); {
		case d == 0:
			if uint32(old) == math.MaxUint32 {
				return // saturated
			}
			next = old + 1
		case d < 0 && d > -budgetBuckets:
			return // a later span already took the bucket: this reading is stale
		default:
			next = uint64(e)<<32 | 1
		}
		if w.CompareAndSwap(old, next) {
			return
		}
	}
}

// sum returns the counts of the buckets within the window ending at bucket e.
func sum(words *[budgetBuckets]atomic.Uint64, e uint32) float64 {
	var n uint64
	for i := range words {
		w := words[i].Load()
		if d := int32(e - uint32(w>>32)); d >= 0 && d < budgetBuckets {
			n += uint64(uint32(w))
		}
	}
	return float64(n)
}

// deposit counts a call (a first attempt) at now.
func (b *budget) deposit(now int64) { add(&b.calls, b.bucket(now)) }

// withdraw reports whether the budget allows one more retry at now, and if
// so counts it.
func (b *budget) withdraw(now int64) bool {
	e := b.bucket(now)
	if sum(&b.retries, e)+1 > b.allowance(e) {
		return false
	}
	add(&b.retries, e)
	return true
}

func (b *budget) allowance(e uint32) float64 {
	return b.minRetries + b.ratio*sum(&b.calls, e)
}

// available returns how many more retries the budget allows at now.
func (b *budget) available(now int64) int {
	e := b.bucket(now)
	n := math.Floor(b.allowance(e) - sum(&b.retries, e))
	if n < 0 {
		return 0
	}
	return int(n)
}
