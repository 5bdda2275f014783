package adaptivelimit

import (
	"context"
	"time"

	"github.com/resilience4cata/r4c/events"
)

// windowState is the state of the windows and of the algorithm. It is
// guarded by Limiter.mu.
type windowState struct {
	// Readings of the sample counters when the current window began.
	baseSamples uint32
	baseSum     int64
	baseDrops   int64
	baseDropSum int64
	baseRejects int64 // and of the rejection counter

	start   int64 // clock reading when the current window began
	windows int64 // windows completed
	limit   int   // the integer limit callers see

	// The figures of the last completed window.
	lastRTT      time.Duration
	lastMaxIF    int
	lastSamples  int
	lastDropped  bool
	lastOverload bool

	grew bool // the last recompute raised the limit

	alg algorithm
}

// tripShare returns, in thirds, the share of a window's samples that its
// drops must pass to end it early: two thirds, or one third after a
// growth (a growth past the knee of a dependency that slows as more calls
// share it can make most calls time out within a fraction of a window, and
// the calls it abandons keep it busy: the window is cut short before the
// calls that succeeded before the overload dilute its drops).
func (w *windowState) tripShare() int64 {
	if w.grew {
		return 1
	}
	return 2
}

func (w *windowState) init(cfg *Config, now int64) {
	w.start = now
	w.limit = cfg.InitialLimit
	w.alg.init(cfg)
}

// endWindow runs on the goroutine of a call that recorded a sample at now,
// a reading at or after the window's end. Only one goroutine recomputes: if
// another holds the lock, this call leaves the work to it (or to a later
// call). A window that is over with too few samples has its end pushed out
// by one Window and keeps its samples; otherwise the limit is recomputed
// and the next window starts at now.
func (l *Limiter) endWindow(ctx context.Context, now int64) {
	if !l.mu.TryLock() {
		return
	}
	w := &l.win
	end := l.hot.windowEnd.Load()
	early := now-end < 0
	if early && !l.earlyEnd { // another call ended this window first
		l.mu.Unlock()
		return
	}
	word := l.hot.word.Load()
	samples := uint32(word>>32) - w.baseSamples
	if int64(samples) < int64(l.cfg.MinWindowSamples) && !l.fewEnough(samples, now) {
		if !early {
			l.hot.windowEnd.Store(end + int64(l.cfg.Window))
		}
		l.mu.Unlock()
		return
	}
	var sum, drops, dropSum int64
	for i := range l.stripes {
		sum += l.stripes[i].sum.Load()
		drops += l.stripes[i].drops.Load()
		dropSum += l.stripes[i].dropSum.Load()
	}
	if early && (drops-w.baseDrops < l.dropTrip.Load() || 3*(drops-w.baseDrops) <= w.tripShare()*int64(samples)) {
		// Ended early by drops (Little): only when they are most of the
		// window's samples (a third of them after a growth: tripShare),
		// else the window runs its course, and the next
		// look is another trip's worth of drops away (so that a window
		// with many drops among more successes costs a look per trip, not
		// one per drop).
		l.dropTrip.Store(l.winDrops.Load() + int64(dropTrip(&l.cfg, w.limit)))
		l.mu.Unlock()
		return
	}
	rtt := time.Duration((sum - w.baseSum) / int64(samples))
	dropped := drops != w.baseDrops
	// The next window's most-in-flight starts from the calls in flight now.
	maxIF := int(l.hot.maxIF.Swap(uint32(word)))
	l.raiseMax(uint32(l.hot.word.Load()))

	windowDrops := int(drops - w.baseDrops)
	okRTT := rtt
	if ok := int64(samples) - int64(windowDrops); ok > 0 {
		okRTT = time.Duration((sum - w.baseSum - (dropSum - w.baseDropSum)) / ok)
	}
	w.baseSamples, w.baseSum, w.baseDrops, w.baseDropSum = uint32(word>>32), sum, drops, dropSum
	rejects := l.rejections.Load()
	windowRejects := int(rejects - w.baseRejects)
	w.baseRejects = rejects
	overload := l.cfg.LatencyCeiling > 0 && rtt > l.cfg.LatencyCeiling
	old := w.limit
	w.limit = w.alg.update(&l.cfg, w.limit, figures{
		rtt: rtt, okRTT: okRTT, maxIF: maxIF, samples: int(samples), drops: windowDrops, rejects: windowRejects,
		duration: now - w.start, now: now, overload: overload,
	})
	w.start = now
	w.windows++
	w.grew = w.limit > old
	w.lastRTT, w.lastMaxIF, w.lastSamples = rtt, maxIF, int(samples)
	w.lastDropped, w.lastOverload = dropped, overload
	l.hot.windowEnd.Store(now + int64(l.cfg.Window))
	if l.earlyEnd {
		l.winDrops.Store(0)
		trip := int64(dropTrip(&l.cfg, w.limit))
		if w.limit < old {
			// After a cut the calls admitted before it still time out:
			// they do not count towards the trip, only the drops of calls
			// admitted since. (A window that ran its course after every
			// cut would, on a fast dependency whose calls all time out,
			// let a thousand timeouts' worth of calls in per second.)
			trip += int64(uint32(l.hot.word.Load()))
		}
		l.dropTrip.Store(trip)
	}
	changed := w.limit != old
	var ev events.LimitChanged
	if changed {
		l.storeLimit(w.limit)
		ev = events.LimitChanged{
			Instance:      l.instance,
			OldLimit:      old,
			NewLimit:      w.limit,
			WindowLatency: rtt,
			LongLatency:   w.alg.longLatency(),
			MaxInFlight:   maxIF,
			Dropped:       dropped,
			Samples:       int(samples),
		}
	}
	l.mu.Unlock()
	if !changed {
		return
	}
	if l.waitOn && ev.NewLimit > ev.OldLimit && l.hot.waiting.Load() != 0 {
		l.handoff()
	}
	if l.bus.Active() {
		l.bus.PublishContext(ctx, ev)
	}
}

// fewEnough reports whether a window of Little that is over with fewer
// than MinWindowSamples samples ends anyway: once it has run two Windows
// and every slot of the limit has turned over twice on average (two
// samples at least). At a small limit of a slow dependency, MinWindowSamples
// take far longer than that (ten calls of 1.8 s, one at a time, are 18 s),
// and the limit could not grow all that time while calls were turned away.
// Little pools such windows into its epochs by their samples.
func (l *Limiter) fewEnough(samples uint32, now int64) bool {
	w := &l.win
	return l.earlyEnd && samples >= 2 && int64(samples) >= 2*int64(w.limit) && now-w.start >= 2*int64(l.cfg.Window)
}

// dropTrip returns how many drops end a window of Little early, at a limit:
// a window whose drops reach this and are two thirds of its samples is an
// overload to answer at once, not a second later. Half the limit (half the
// calls in flight timed out), and at least twice MinWindowSamples, so that
// the share is read on enough samples.
func dropTrip(cfg *Config, limit int) int {
	return max(2*cfg.MinWindowSamples, limit/2)
}
