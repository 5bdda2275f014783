package bulkhead

// SetTestHookBeforeQueue sets the hook wait runs before it queues a waiter.
func SetTestHookBeforeQueue(f func()) { testHookBeforeQueue = f }

// SetTestHookWaiting sets the hook wait runs just before a queued waiter
// waits.
func SetTestHookWaiting(f func()) { testHookWaiting = f }

// StaleCAS runs the first pass of tryAcquire's loop with set in the middle:
// it reads the slot word and max, runs set, then tries the CAS with what it
// read. It reports whether the CAS took a slot, and the max it read.
func StaleCAS(b *Bulkhead, set func()) (took bool, max int64) {
	w := b.inFlight.Load()
	max = b.max.Load()
	set()
	if int64(uint32(w)) >= max {
		return false, max
	}
	return b.inFlight.CompareAndSwap(w, w+1), max
}
