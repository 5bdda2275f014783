package adaptivelimit

import (
	"context"
	"slices"
)

// waiter is a call queued for a slot under MaxWait.
type waiter struct {
	rank    int
	ready   chan struct{} // closed when granted
	granted bool          // guarded by Limiter.wmu
	slot    uint32        // set with granted
}

// wait queues the caller for a slot of its priority, for at most MaxWait or
// until ctx is done. It returns the slot count seen when the slot was
// taken, the rejection error after MaxWait, or ctx.Err().
//
// The queue count goes up before the last attempt to take a slot (under
// wmu): a release that frees a slot after that attempt then sees a waiter
// and hands the slot over, so no wake-up is lost.
func (l *Limiter) wait(ctx context.Context) (uint32, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	w := &waiter{rank: PriorityFrom(ctx).rank(), ready: make(chan struct{})}
	l.wmu.Lock()
	l.hot.waiting.Add(1)
	if l.firstInLine(w.rank) {
		if n, ok := l.grab(w.rank); ok {
			l.hot.waiting.Add(-1)
			l.wmu.Unlock()
			return n, nil
		}
	}
	l.queues[w.rank] = append(l.queues[w.rank], w)
	l.wmu.Unlock()

	t := l.clock.NewTimer(l.cfg.MaxWait)
	select {
	case <-w.ready:
		t.Stop()
		return w.slot, nil
	case <-ctx.Done():
	case <-t.C():
	}
	t.Stop()
	l.wmu.Lock()
	if w.granted {
		l.wmu.Unlock()
		if err := ctx.Err(); err != nil {
			// Granted as the caller gave up: pass the slot on.
			l.release(ctx, Permit{slot: w.slot, kind: permitHeld}, OutcomeIgnore, 0)
			return 0, err
		}
		return w.slot, nil // granted as the wait ran out: take it
	}
	q := l.queues[w.rank]
	if i := slices.Index(q, w); i >= 0 {
		l.queues[w.rank] = slices.Delete(q, i, i+1)
	}
	l.hot.waiting.Add(-1)
	l.wmu.Unlock()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	l.rejected(ctx)
	return 0, l.err
}

// firstInLine reports whether no call of rank or higher is queued. The
// caller holds l.wmu.
func (l *Limiter) firstInLine(rank int) bool {
	for r := rank; r < len(l.queues); r++ {
		if len(l.queues[r]) > 0 {
			return false
		}
	}
	return true
}

// handoff gives free slots to queued calls, highest priority first and
// oldest first within a priority. It stops at the first call that cannot
// have one: the calls after it have the same or a smaller share.
func (l *Limiter) handoff() {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	for r := len(l.queues) - 1; r >= 0; r-- {
		for len(l.queues[r]) > 0 {
			w := l.queues[r][0]
			n, ok := l.grab(r)
			if !ok {
				return
			}
			l.queues[r][0] = nil
			l.queues[r] = l.queues[r][1:]
			w.granted, w.slot = true, n
			l.hot.waiting.Add(-1)
			close(w.ready)
		}
	}
}

// queued returns how many calls wait for a slot.
func (l *Limiter) queued() int { return int(l.hot.waiting.Load()) }
