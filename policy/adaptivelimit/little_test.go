package adaptivelimit_test

// Tests of the Little algorithm against an ideal dependency on the manual
// clock: C workers in front of a FIFO queue, every call served in s (with a
// small deterministic wobble), and more calls waiting than the limit lets
// through, so the limit is always full. Below the knee (limit <= C) a call
// takes s; above it, it waits for the calls ahead of it: s*inflight/C.

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// shape is the dependency at a time: its capacity and service time.
type shape func(at time.Duration) (capacity int, service time.Duration)

type completion struct {
	at time.Duration
	p  adaptivelimit.Permit
	o  adaptivelimit.Outcome
}

type completions []completion

func (h completions) Len() int           { return len(h) }
func (h completions) Less(i, j int) bool { return h[i].at < h[j].at }
func (h completions) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *completions) Push(x any)        { *h = append(*h, x.(completion)) }
func (h *completions) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// saturate drives l for d under overload against dep and returns the limit
// sampled every 100 ms. Calls whose latency would pass timeout (if > 0) are
// drops released at the timeout.
func saturate(t *testing.T, cfg adaptivelimit.Config, dep shape, d, timeout time.Duration) []int {
	t.Helper()
	return saturateTail(t, cfg, dep, d, timeout, 0, 0)
}

// saturateTail is saturate with a tail: a deterministic share tail of the
// calls (one in 1/tail, spread by frac) takes tailX times its latency.
func saturateTail(t *testing.T, cfg adaptivelimit.Config, dep shape, d, timeout time.Duration, tail, tailX float64) []int {
	t.Helper()
	cfg.Algorithm = adaptivelimit.Little
	clk := clocktest.NewManualClock()
	l, err := adaptivelimit.New(cfg, policy.Env{Clock: clk})
	require.NoError(t, err)
	h := l.Handle()
	var pending completions
	var now time.Duration
	n := 0
	fill := func() {
		for {
			p, ok := l.TryAcquire()
			if !ok {
				return
			}
			c, s := dep(now)
			inflight := h.InFlight()
			lat := time.Duration(float64(s) * math.Max(1, float64(inflight)/float64(c)) * (0.95 + 0.1*frac(n)))
			if frac(3*n+1) < tail {
				lat = time.Duration(float64(lat) * tailX)
			}
			n++
			o := adaptivelimit.OutcomeSuccess
			if timeout > 0 && lat > timeout {
				lat, o = timeout, adaptivelimit.OutcomeDrop
			}
			heap.Push(&pending, completion{now + lat, p, o})
		}
	}
	var limits []int
	next := time.Duration(0)
	fill()
	for now < d {
		c := heap.Pop(&pending).(completion)
		for next <= c.at && next < d {
			limits = append(limits, h.Limit())
			next += 100 * time.Millisecond
		}
		clk.Advance(c.at - now)
		now = c.at
		l.Release(c.p, c.o)
		fill()
	}
	return limits
}

// frac is a deterministic value in [0, 1) for the n-th call.
func frac(n int) float64 {
	_, f := math.Modf(float64(n+1) * 0.6180339887498949)
	return f
}

func fixed(capacity int, service time.Duration) shape {
	return func(time.Duration) (int, time.Duration) { return capacity, service }
}

// between returns the lowest and highest limit of samples [from, to) (in
// 100 ms samples).
func between(limits []int, from, to time.Duration) (lo, hi int) {
	lo, hi = math.MaxInt, 0
	for i := int(from / (100 * time.Millisecond)); i < int(to/(100*time.Millisecond)) && i < len(limits); i++ {
		lo, hi = min(lo, limits[i]), max(hi, limits[i])
	}
	return lo, hi
}

// firstWithin returns when the limit first lies within ±25% of c at or
// after from, or -1.
func firstWithin(limits []int, c int, from time.Duration) time.Duration {
	for i := int(from / (100 * time.Millisecond)); i < len(limits); i++ {
		if l := float64(limits[i]); l >= 0.75*float64(c) && l <= 1.25*float64(c) {
			return time.Duration(i)*100*time.Millisecond - from
		}
	}
	return -1
}

func TestLittleFindsTheKnee(t *testing.T) {
	for _, tc := range []struct {
		capacity, initial int
		service           time.Duration
		settle            time.Duration // 10 s unless set
		over              float64       // the highest limit as a share of C, 1.35 unless set
	}{
		{capacity: 2, initial: 20, service: 20 * time.Millisecond},
		{capacity: 4, initial: 20, service: 100 * time.Millisecond},
		{capacity: 10, initial: 20, service: 100 * time.Millisecond},
		{capacity: 40, initial: 20, service: 100 * time.Millisecond},
		{capacity: 40, initial: 1, service: 100 * time.Millisecond},
		{capacity: 40, initial: 400, service: 100 * time.Millisecond},
		{capacity: 200, initial: 20, service: 100 * time.Millisecond},
		{capacity: 10, initial: 20, service: time.Millisecond},
		// A call takes half a window: each probe waits out a window of
		// calls admitted before it, and with 20 samples a window a probe
		// must move the limit by a quarter to be told from noise.
		{capacity: 10, initial: 20, service: 500 * time.Millisecond, settle: 15 * time.Second, over: 1.5},
	} {
		t.Run(fmt.Sprintf("C=%d/initial=%d/service=%v", tc.capacity, tc.initial, tc.service), func(t *testing.T) {
			limits := saturate(t, adaptivelimit.Config{InitialLimit: tc.initial, MaxLimit: 1000},
				fixed(tc.capacity, tc.service), 60*time.Second, 0)
			settle := cmp.Or(tc.settle, 10*time.Second)
			first := firstWithin(limits, tc.capacity, 0)
			assert.True(t, first >= 0 && first <= settle, "first within ±25%% of C after %v", first)
			// Then at the knee: never below it by more than a call, and a
			// queue of at most a third of the capacity and a call.
			lo, hi := between(limits, 2*settle, 60*time.Second)
			assert.GreaterOrEqual(t, lo, int(0.85*float64(tc.capacity)), "lowest limit after the settling")
			assert.LessOrEqual(t, hi, int(cmp.Or(tc.over, 1.35)*float64(tc.capacity))+1, "highest limit after the settling")
		})
	}
}

func TestLittleFollowsCapacity(t *testing.T) {
	step := func(before, after int) shape {
		return func(at time.Duration) (int, time.Duration) {
			if at < 20*time.Second {
				return before, 100 * time.Millisecond
			}
			return after, 100 * time.Millisecond
		}
	}
	t.Run("down", func(t *testing.T) {
		limits := saturate(t, adaptivelimit.Config{}, step(40, 10), 40*time.Second, 0)
		at := firstWithin(limits, 10, 20*time.Second)
		assert.True(t, at >= 0 && at <= 5*time.Second, "within ±25%% of the new capacity after %v", at)
		_, hi := between(limits, 30*time.Second, 40*time.Second)
		assert.LessOrEqual(t, hi, 14)
	})
	t.Run("up", func(t *testing.T) {
		limits := saturate(t, adaptivelimit.Config{}, step(10, 40), 40*time.Second, 0)
		at := firstWithin(limits, 40, 20*time.Second)
		assert.True(t, at >= 0 && at <= 10*time.Second, "within ±25%% of the new capacity after %v", at)
		lo, _ := between(limits, 32*time.Second, 40*time.Second)
		assert.GreaterOrEqual(t, lo, 34)
	})
}

// A dependency that got twice as slow at the same capacity is a new normal,
// not a queue: the limit comes back to the capacity instead of halving.
func TestLittleLatencyStepIsANewNormal(t *testing.T) {
	dep := func(at time.Duration) (int, time.Duration) {
		if at < 20*time.Second {
			return 40, 100 * time.Millisecond
		}
		return 40, 200 * time.Millisecond
	}
	limits := saturate(t, adaptivelimit.Config{}, dep, 60*time.Second, 0)
	at := firstWithin(limits, 40, 20*time.Second)
	assert.True(t, at >= 0 && at <= 10*time.Second, "back within ±25%% of C after %v", at)
	lo, hi := between(limits, 40*time.Second, 60*time.Second)
	assert.GreaterOrEqual(t, lo, 34)
	assert.LessOrEqual(t, hi, 55)
}

// Far above the knee with a timeout at twice the service time every call
// drops: the limit comes down at once, not a window at a time.
func TestLittleDropsCutAtOnce(t *testing.T) {
	limits := saturate(t, adaptivelimit.Config{InitialLimit: 400, MaxLimit: 1000},
		fixed(40, 100*time.Millisecond), 20*time.Second, 200*time.Millisecond)
	at := firstWithin(limits, 40, 0)
	assert.True(t, at >= 0 && at <= 6*time.Second, "within ±25%% of C after %v", at)
	// The no-load latency was inferred, not measured: a probe below proves
	// it once (by 11 s), then the limit stays at the knee.
	lo, hi := between(limits, 11*time.Second, 20*time.Second)
	assert.GreaterOrEqual(t, lo, 34)
	assert.LessOrEqual(t, hi, 55)
}

// A tail of calls that always time out (one in thirty takes forty times the
// service time, past a timeout of twenty) is the dependency's own: the limit
// holds at the knee. Each drop reports the timeout, so one drop more or less
// in an epoch of a hundred calls moves its mean latency by a fifth; Little
// reads queues on the latency of the calls that succeeded and judges drops
// by their share. (Read on the mean of all calls, the limit climbed to 78.)
func TestLittleTailTimeoutsAreNotAQueue(t *testing.T) {
	limits := saturateTail(t, adaptivelimit.Config{}, fixed(40, 100*time.Millisecond), 60*time.Second,
		2*time.Second, 1.0/30, 40)
	lo, hi := between(limits, 20*time.Second, 60*time.Second)
	assert.GreaterOrEqual(t, lo, 34, "lowest limit after the start")
	assert.LessOrEqual(t, hi, 60, "highest limit after the start")
}

// LatencyCeiling makes a window above it overload, whatever the no-load
// latency learnt: a dependency slow from the start is cut down.
func TestLittleLatencyCeiling(t *testing.T) {
	limits := saturate(t, adaptivelimit.Config{LatencyCeiling: 150 * time.Millisecond},
		fixed(10, 100*time.Millisecond), 20*time.Second, 0)
	_, hi := between(limits, 10*time.Second, 20*time.Second)
	assert.LessOrEqual(t, hi, 15, "a window at 1.5x C passes the ceiling")
}

// The first window, biased towards short calls, changes nothing; neither
// does a window with too few samples to judge.
func TestLittleFirstWindowJudgesNothing(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.Little, MinWindowSamples: 1, InitialLimit: 10})
	for range 3 {
		p := f.acquire(1)[0]
		f.clk.Advance(time.Second)
		f.l.Release(p, adaptivelimit.OutcomeSuccess)
	}
	assert.Equal(t, 10, f.h.Limit())
	assert.EqualValues(t, 3, f.h.Snapshot().Windows)
}

// earlyFixture is a limiter with InitialLimit 40 on a manual clock whose
// 40 slots are all taken.
func earlyFixture(t *testing.T, alg adaptivelimit.Algorithm) (*adaptivelimit.Limiter, *clocktest.ManualClock, []adaptivelimit.Permit) {
	t.Helper()
	clk := clocktest.NewManualClock()
	l, err := adaptivelimit.New(adaptivelimit.Config{Algorithm: alg, InitialLimit: 40, MaxLimit: 100}, policy.Env{Clock: clk})
	require.NoError(t, err)
	ps := make([]adaptivelimit.Permit, 40)
	for i := range ps {
		p, ok := l.TryAcquire()
		require.True(t, ok)
		ps[i] = p
	}
	return l, clk, ps
}

// Little answers a window whose drops are most of its samples as soon as
// they reach max(2×MinWindowSamples, limit/2), without waiting for the
// window's end: the limit is cut 200 ms into a 1 s window. After a cut, the
// drops of the calls still in flight from before it do not count towards
// the next trip.
func TestLittleDropsEndAWindowEarly(t *testing.T) {
	l, clk, ps := earlyFixture(t, adaptivelimit.Little)
	clk.Advance(200 * time.Millisecond)
	// One success among the drops: a window whose samples are all drops
	// cuts to a tenth, and this test needs a trip's worth of slots after.
	l.Release(ps[0], adaptivelimit.OutcomeSuccess)
	for i := 1; i < 20; i++ {
		l.Release(ps[i], adaptivelimit.OutcomeDrop)
	}
	assert.Equal(t, 40, l.Handle().Limit(), "19 drops are under the trip of 20")
	l.Release(ps[20], adaptivelimit.OutcomeDrop)
	assert.Less(t, l.Handle().Limit(), 40, "the 20th drop ends the window and the limit is cut")
	cut := l.Handle().Limit()

	// After a cut the calls admitted before it still time out, and are no
	// news: their drops do not count towards the next trip.
	windows := l.Handle().Snapshot().Windows
	for i := 21; i < 40; i++ {
		l.Release(ps[i], adaptivelimit.OutcomeDrop)
	}
	assert.Equal(t, cut, l.Handle().Limit(), "drops of calls admitted before the cut end no window early")
	assert.Equal(t, windows, l.Handle().Snapshot().Windows, "drops of calls admitted before the cut end no window early")

	// Drops of calls admitted since the cut do: a trip's worth of them
	// (20) ends the window as early as before the cut.
	fresh := make([]adaptivelimit.Permit, 0, cut)
	for range cut {
		p, ok := l.TryAcquire()
		require.True(t, ok)
		fresh = append(fresh, p)
	}
	require.GreaterOrEqual(t, len(fresh), 20)
	for _, p := range fresh[:19] {
		l.Release(p, adaptivelimit.OutcomeDrop)
	}
	assert.Equal(t, windows, l.Handle().Snapshot().Windows, "19 drops since the cut are under the trip")
	l.Release(fresh[19], adaptivelimit.OutcomeDrop)
	assert.Equal(t, windows+1, l.Handle().Snapshot().Windows, "the 20th drop since the cut ends the window early")
	for _, p := range fresh[20:] {
		l.Release(p, adaptivelimit.OutcomeSuccess)
	}
}

// Drops that are not most of the window's samples, however many, let the
// window run its course.
func TestLittleDropsAmongSuccessesDoNotEndAWindowEarly(t *testing.T) {
	l, clk, ps := earlyFixture(t, adaptivelimit.Little)
	clk.Advance(200 * time.Millisecond)
	for i := range 40 {
		o := adaptivelimit.OutcomeSuccess
		if i%2 == 0 {
			o = adaptivelimit.OutcomeDrop // 20 drops, half of 40 samples
		}
		l.Release(ps[i], o)
	}
	assert.Equal(t, 40, l.Handle().Limit())
}

// The window that follows a growth ends early on drops that are a third of
// its samples, not two thirds: a growth past the knee of a dependency that
// slows as more calls share it makes most calls time out within a fraction
// of a window, and the calls that succeeded before would dilute the drops
// for as long as the abandoned calls pile up. (Half of the samples as drops
// end no window that follows no growth: see the test above.)
func TestLittleDropsEndTheWindowAfterAGrowthSooner(t *testing.T) {
	clk := clocktest.NewManualClock()
	l, err := adaptivelimit.New(adaptivelimit.Config{Algorithm: adaptivelimit.Little, InitialLimit: 20, MaxLimit: 1000},
		policy.Env{Clock: clk})
	require.NoError(t, err)
	h := l.Handle()
	fill := func() []adaptivelimit.Permit {
		var ps []adaptivelimit.Permit
		for {
			p, ok := l.TryAcquire()
			if !ok {
				return ps
			}
			ps = append(ps, p)
		}
	}
	// Calls of 100 ms that fill the limit, more of them turned away, until
	// slow start grows it.
	for i := 0; h.Limit() == 20; i++ {
		require.Less(t, i, 100, "the limit never grew")
		ps := fill()
		clk.Advance(100 * time.Millisecond)
		for _, p := range ps {
			l.Release(p, adaptivelimit.OutcomeSuccess)
		}
	}
	grown, windows := h.Limit(), h.Snapshot().Windows
	require.GreaterOrEqual(t, grown, 40)
	ps := fill()
	require.Len(t, ps, grown)
	clk.Advance(100 * time.Millisecond)
	for i, p := range ps {
		o := adaptivelimit.OutcomeSuccess
		if i%2 == 0 {
			o = adaptivelimit.OutcomeDrop // half of the samples, and the trip of max(20, limit/2)
		}
		l.Release(p, o)
	}
	assert.Equal(t, windows+1, h.Snapshot().Windows, "drops of half the samples end the window after a growth")
	assert.Less(t, h.Limit(), grown, "and the growth is undone")
}

// The reference algorithms keep their windows exactly: drops never end one
// early.
func TestReferenceAlgorithmsKeepWholeWindows(t *testing.T) {
	for _, alg := range []adaptivelimit.Algorithm{adaptivelimit.Gradient2, adaptivelimit.AIMD, adaptivelimit.Vegas} {
		t.Run(alg.String(), func(t *testing.T) {
			l, clk, ps := earlyFixture(t, alg)
			clk.Advance(200 * time.Millisecond)
			for _, p := range ps {
				l.Release(p, adaptivelimit.OutcomeDrop)
			}
			assert.Equal(t, 40, l.Handle().Limit(), "no window ended before its second")
		})
	}
}

// A window of Little at a small limit of a slow dependency ends once it has
// run two Windows and every slot turned over twice, rather than after
// MinWindowSamples: one call at a time of 1.8 s would take 18 s to gather
// ten samples. Gradient2 keeps the reference's rule and waits for ten.
func TestLittleWindowOfASlowSmallLimitEndsOnTwoSamplesASlot(t *testing.T) {
	for _, c := range []struct {
		alg  adaptivelimit.Algorithm
		ends int // the sample the first window ends on
	}{{adaptivelimit.Little, 2}, {adaptivelimit.Gradient2, 10}} {
		t.Run(c.alg.String(), func(t *testing.T) {
			f := newFixture(t, adaptivelimit.Config{Algorithm: c.alg, InitialLimit: 1})
			for i := 1; i <= 10; i++ {
				p := f.acquire(1)
				f.clk.Advance(1800 * time.Millisecond)
				f.releaseAll(p, adaptivelimit.OutcomeSuccess)
				want := int64(0)
				if i >= c.ends {
					want = 1
				}
				require.Equal(t, want, f.h.Snapshot().Windows, "windows ended after sample %d at %v", i, f.elapsed())
				if want == 1 {
					break
				}
			}
		})
	}
}
