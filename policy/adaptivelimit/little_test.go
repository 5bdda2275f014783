package adaptivelimit_test

// A reference model of the Little algorithm, transcribed from the
// pseudo-code of its design (not from the package's code), and tests that
// drive a limiter window by window on the manual clock and compare its
// estimate with the model's after every window.

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

type littleModelPast struct {
	L, n, rtt float64
	clean     bool
}

// littleModel is Little as its design writes it.
type littleModel struct {
	minLimit, maxLimit float64
	ceiling            float64 // LatencyCeiling in ns, 0: off

	L        float64
	windows  int
	warm     int
	warmRTTs []float64
	smoothed float64
	base     float64
	cv       float64
	cvCount  int
	hasPrev  bool
	prev     struct{ rtt, s, L float64 }
	step     float64
	past     []littleModelPast

	// What happened in the last window, for the tests' own checks.
	lastCut, lastRebase, lastClean bool
}

func newLittleModel(initial, minLimit, maxLimit float64) *littleModel {
	return &littleModel{L: initial, minLimit: minLimit, maxLimit: maxLimit, step: 1}
}

func (m *littleModel) clamp(x float64) float64 {
	return math.Max(m.minLimit, math.Min(m.maxLimit, x))
}

func (m *littleModel) noise(rtt, s, L float64) float64 {
	if m.hasPrev && math.Floor(L) == math.Floor(m.prev.L) {
		obs := math.Abs(math.Log(rtt/m.prev.rtt)) / math.Sqrt(1/s+1/m.prev.s) * math.Sqrt(math.Pi) / 2
		if m.cvCount < 10 {
			m.cvCount++
			m.cv = m.cv + (obs-m.cv)/float64(m.cvCount) // running mean
		} else {
			m.cv += 0.1 * (math.Min(obs, 3*m.cv) - m.cv)
		}
	}
	m.hasPrev = true
	m.prev.rtt, m.prev.s, m.prev.L = rtt, s, L
	return m.cv / math.Sqrt(s)
}

// update applies one window: its average latency in ns, its most calls in
// flight, its samples and whether it had a drop.
func (m *littleModel) update(rtt float64, n, samples int, drop bool) {
	m.lastCut, m.lastRebase, m.lastClean = false, false, false
	m.windows++
	L := m.L
	if m.windows == 1 || rtt <= 0 {
		return
	}
	s := float64(max(1, samples))
	nf := float64(n)
	sigma := m.noise(rtt, s, L)
	m.warm++
	if m.warm <= 4 {
		m.warmRTTs = append(m.warmRTTs, rtt)
		sum := 0.0
		for _, r := range m.warmRTTs {
			sum += r
		}
		m.smoothed = sum / float64(len(m.warmRTTs))
		m.base = m.smoothed
	} else {
		m.smoothed += 0.3 * (rtt - m.smoothed)
		m.base = math.Min(m.base, m.smoothed)
	}
	queue := nf * (1 - m.base/rtt)
	lo := math.Max(1, math.Max(0.05, 2*sigma)*L)
	hi := math.Max(2, math.Max(0.15, 3.5*sigma)*L)
	clean := nf <= math.Floor(L)+1
	overload := m.ceiling > 0 && rtt > m.ceiling
	cut := overload || (clean && (queue > hi || (drop && queue > lo)))
	m.lastClean, m.lastCut = clean, cut
	if cut && !overload {
		var ref *littleModelPast
		for i := range m.past {
			if m.past[i].clean && (ref == nil || m.past[i].rtt > ref.rtt) {
				ref = &m.past[i]
			}
		}
		if ref != nil && nf <= 0.85*ref.n {
			expect := math.Max(m.base/ref.rtt, nf/ref.n)
			if rtt/ref.rtt > 1-0.5*(1-expect) {
				m.warm = 1
				m.warmRTTs = []float64{rtt}
				m.smoothed, m.base = rtt, rtt
				refL := ref.L
				m.past = nil
				m.step = 1
				m.lastRebase, m.lastCut = true, false
				m.L = m.clamp(math.Max(L, refL))
				return
			}
		}
	}
	m.past = append(m.past, littleModelPast{L, nf, rtt, clean})
	if len(m.past) > 4 {
		m.past = m.past[1:]
	}
	next := L
	switch {
	case cut:
		next = math.Max(0.5*L, math.Min(L-1, nf*m.base/rtt+lo))
		m.step = 1
	case queue < lo && 2*nf >= L:
		next = L + m.step
		m.step = math.Min(2*m.step, math.Max(1, L/8))
	default:
		m.step = 1
	}
	m.L = m.clamp(next)
}

// littleWin is one window driven by littleDriver.window.
type littleWin struct {
	conc  int           // new calls taken at the window's start (capped at the free slots)
	lat   time.Duration // their latency; at most half the window
	drops int           // how many of the new calls that end in the window are drops
	carry int           // how many of the new calls stay in flight into the next window
}

type heldCall struct {
	p  adaptivelimit.Permit
	at time.Duration
}

// littleDriver runs windows of testWindow on a fixture and keeps its own
// account of what each window measures: the calls carried over from the
// previous window end at lat into the next one (their latency spans the
// window boundary), the new calls end at lat except carry of them, and one
// more call, taken at testWindow-lat, ends the window at testWindow.
type littleDriver struct {
	f    *fixture
	held []heldCall
}

// window drives one window and returns its average latency, its most calls
// in flight, its samples and whether it had a drop.
func (d *littleDriver) window(spec littleWin) (rtt time.Duration, maxIF, samples int, dropped bool) {
	f := d.f
	f.t.Helper()
	require.LessOrEqual(f.t, 2*spec.lat, testWindow)
	t0 := f.elapsed()
	inflight := len(d.held)
	maxIF = inflight
	free := max(0, f.h.Limit()-inflight)
	var fresh []heldCall
	for _, p := range f.acquire(min(spec.conc, free)) {
		fresh = append(fresh, heldCall{p, t0})
	}
	inflight += len(fresh)
	maxIF = max(maxIF, inflight)
	var sum int64
	end := func(h heldCall, o adaptivelimit.Outcome) {
		sum += int64(f.elapsed() - h.at)
		samples++
		if o == adaptivelimit.OutcomeDrop {
			dropped = true
		}
		f.l.Release(h.p, o)
	}
	f.advanceTo(t0 + spec.lat)
	for _, h := range d.held {
		end(h, adaptivelimit.OutcomeSuccess)
	}
	carry := min(spec.carry, len(fresh))
	for i, h := range fresh[carry:] {
		o := adaptivelimit.OutcomeSuccess
		if i < spec.drops {
			o = adaptivelimit.OutcomeDrop
		}
		end(h, o)
	}
	d.held = fresh[:carry]
	inflight = carry
	f.advanceTo(t0 + testWindow - spec.lat)
	last := heldCall{f.acquire(1)[0], f.elapsed()}
	maxIF = max(maxIF, inflight+1)
	f.advanceTo(t0 + testWindow)
	end(last, adaptivelimit.OutcomeSuccess)
	return time.Duration(sum / int64(samples)), maxIF, samples, dropped
}

// wobble is a deterministic factor in [1-a, 1+a) for window i, so that
// window latencies have some noise.
func wobble(i int, a float64) float64 {
	_, frac := math.Modf(float64(i+1) * 0.6180339887498949)
	return 1 - a + 2*a*frac
}

// littlePhase is a run of windows; spec gets the current limit, the
// window's index in the phase and in the whole run.
type littlePhase struct {
	name    string
	windows int
	spec    func(limit, i, k int) littleWin
}

type littleRun struct {
	limits  map[string][2]int
	cuts    map[string]int
	rebases map[string]int
	unclean map[string]int
	minSeen map[string]int
}

// driveLittle drives phases through a limiter with cfg and a model, and
// checks after every window that the limiter's figures are those the driver
// measured and its estimate is the model's.
func driveLittle(t *testing.T, cfg adaptivelimit.Config, phases []littlePhase) littleRun {
	t.Helper()
	cfg.Algorithm = adaptivelimit.Little
	cfg.MinWindowSamples = 1
	cfg.Window = testWindow
	f := newFixture(t, cfg)
	d := &littleDriver{f: f}
	c := f.h.Config()
	m := newLittleModel(float64(c.InitialLimit), float64(c.MinLimit), float64(c.MaxLimit))
	m.ceiling = float64(c.LatencyCeiling)
	run := littleRun{map[string][2]int{}, map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}}
	k := 0
	for _, ph := range phases {
		before := f.h.Limit()
		run.minSeen[ph.name] = before
		for i := range ph.windows {
			rtt, maxIF, samples, dropped := d.window(ph.spec(f.h.Limit(), i, k))
			k++
			m.update(float64(rtt), maxIF, samples, dropped)
			s := f.h.Snapshot()
			require.Equal(t, int64(k), s.Windows, "%s window %d", ph.name, i)
			require.Equal(t, rtt, s.WindowLatency, "%s window %d", ph.name, i)
			require.Equal(t, maxIF, s.MaxInFlight, "%s window %d", ph.name, i)
			require.Equal(t, samples, s.WindowSamples, "%s window %d", ph.name, i)
			require.Equal(t, dropped, s.WindowDropped, "%s window %d", ph.name, i)
			require.InDelta(t, m.L, s.EstimatedLimit, 1e-9, "%s window %d: estimate", ph.name, i)
			require.Equal(t, int(m.L), s.Limit, "%s window %d: limit", ph.name, i)
			require.InDelta(t, m.base, float64(s.NoLoadLatency), 1, "%s window %d: baseline", ph.name, i)
			require.Zero(t, s.LongLatency)
			if m.lastCut {
				run.cuts[ph.name]++
			}
			if m.lastRebase {
				run.rebases[ph.name]++
			}
			if !m.lastClean && m.windows > 1 {
				run.unclean[ph.name]++
			}
			run.minSeen[ph.name] = min(run.minSeen[ph.name], s.Limit)
		}
		run.limits[ph.name] = [2]int{before, f.h.Limit()}
		t.Logf("%-12s limit %3d -> %3d (min %3d, cuts %d, rebases %d, unclean %d)", ph.name, before, f.h.Limit(),
			run.minSeen[ph.name], run.cuts[ph.name], run.rebases[ph.name], run.unclean[ph.name])
	}
	for _, h := range d.held {
		f.l.Release(h.p, adaptivelimit.OutcomeIgnore)
	}
	return run
}

const littleBase = 20 * time.Millisecond

// served is the latency of a dependency of capacity c with n calls in
// flight: the base latency while n <= c, then in proportion to n (the
// excess queues), with a little noise.
func served(n, c, k int) time.Duration {
	return time.Duration(float64(littleBase) * math.Max(1, float64(n)/float64(c)) * wobble(k, 0.03))
}

func TestLittleMatchesModel(t *testing.T) {
	capacity := 40
	run := driveLittle(t, adaptivelimit.Config{}, []littlePhase{
		{"healthy", 30, func(limit, i, k int) littleWin {
			n := min(limit, 30)
			return littleWin{conc: n, lat: served(n, capacity, k)}
		}},
		{"app-limited", 8, func(limit, i, k int) littleWin {
			return littleWin{conc: 5, lat: served(5, capacity, k)}
		}},
		{"overloaded", 30, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: served(limit, capacity, k)}
		}},
		{"drop", 25, func(limit, i, k int) littleWin { // the capacity falls to 10
			return littleWin{conc: limit, lat: served(limit, 10, k)}
		}},
		{"recovered", 40, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: served(limit, capacity, k)}
		}},
	})
	assert.Greater(t, run.limits["healthy"][1], 30, "healthy grows while the limit is in use")
	assert.Equal(t, run.limits["app-limited"][0], run.limits["app-limited"][1], "app-limited holds")
	assert.Positive(t, run.cuts["overloaded"], "overload cuts")
	assert.InDelta(t, capacity, run.limits["overloaded"][1], 0.25*float64(capacity), "overload settles near the capacity")
	assert.Positive(t, run.cuts["drop"])
	assert.InDelta(t, 10, run.limits["drop"][1], 2.5, "a capacity drop settles near the new capacity")
	assert.InDelta(t, capacity, run.limits["recovered"][1], 0.25*float64(capacity), "recovery")
}

func TestLittleLatencyShiftIsANewNormal(t *testing.T) {
	// The dependency gets three times slower with no change of capacity:
	// the first cut is undone once latency does not fall with the calls in
	// flight, and the limit does not collapse.
	run := driveLittle(t, adaptivelimit.Config{InitialLimit: 30}, []littlePhase{
		{"before", 12, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: time.Duration(float64(littleBase) * wobble(k, 0.02))}
		}},
		{"shifted", 20, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: time.Duration(3 * float64(littleBase) * wobble(k, 0.02))}
		}},
	})
	assert.Positive(t, run.cuts["shifted"], "the shift reads as a queue at first")
	assert.Positive(t, run.rebases["shifted"], "then as a new normal")
	assert.GreaterOrEqual(t, run.limits["shifted"][1], run.limits["shifted"][0], "no collapse")
}

func TestLittleSkipsWindowsThatBeganAboveTheLimit(t *testing.T) {
	// A sharp overload with calls held over the window boundary: after the
	// cut, the next window begins with more calls in flight than the new
	// limit and must not cut again on their stale queue.
	run := driveLittle(t, adaptivelimit.Config{InitialLimit: 40}, []littlePhase{
		{"warm", 8, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: time.Duration(float64(littleBase) * wobble(k, 0.02))}
		}},
		{"cut", 1, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: served(limit, 10, k), carry: limit - 1}
		}},
		{"carried", 1, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: served(limit, 10, k)}
		}},
		{"after", 3, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: served(limit, 10, k)}
		}},
	})
	assert.Equal(t, 1, run.cuts["cut"])
	assert.Equal(t, 1, run.unclean["carried"], "the window after the cut began above its limit")
	assert.Zero(t, run.cuts["carried"], "and judged nothing, though its latency is far above the baseline")
	assert.Equal(t, run.limits["carried"][0], run.limits["carried"][1])
	assert.Zero(t, run.unclean["after"])
	// (The carried window's latency, about a whole window here, still
	// teaches the noise estimate, which then reads the next windows'
	// queue as noise: the model agrees, as the design has it.)
}

func TestLittleDropsCutAtTheLowBound(t *testing.T) {
	// A mild queue (above the low bound, below the high one) cuts only with
	// a drop.
	run := driveLittle(t, adaptivelimit.Config{InitialLimit: 40, MaxLimit: 40}, []littlePhase{
		{"warm", 10, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: littleBase}
		}},
		{"mild", 3, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: littleBase * 110 / 100}
		}},
		{"mild+drops", 1, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: littleBase * 110 / 100, drops: 2}
		}},
	})
	assert.Zero(t, run.cuts["mild"])
	assert.Equal(t, 40, run.limits["mild"][1])
	assert.Equal(t, 1, run.cuts["mild+drops"])
	assert.Less(t, run.limits["mild+drops"][1], 40)
}

func TestLittleLatencyCeiling(t *testing.T) {
	// Above the ceiling every window cuts, without the new-normal check:
	// the limit halves down to the capacity estimate and keeps falling.
	ceiling := 50 * time.Millisecond
	run := driveLittle(t, adaptivelimit.Config{InitialLimit: 40, LatencyCeiling: ceiling}, []littlePhase{
		{"warm", 8, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: time.Duration(float64(littleBase) * wobble(k, 0.02))}
		}},
		{"slow", 6, func(limit, i, k int) littleWin {
			return littleWin{conc: limit, lat: 3 * littleBase}
		}},
	})
	assert.Equal(t, 6, run.cuts["slow"], "every window above the ceiling cuts")
	assert.Zero(t, run.rebases["slow"], "no new-normal check above the ceiling")
	assert.Less(t, run.limits["slow"][1], 10)
}

func TestLittleFirstAndZeroLatencyWindows(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.Little, MinWindowSamples: 1, Window: testWindow})
	// The first window teaches nothing, however slow; zero-latency windows
	// (a clock that does not move) neither.
	f.driveWindow(testWindow, windowSpec{concurrent: 20, latency: 4 * time.Second})
	for range 5 {
		f.driveWindow(testWindow, windowSpec{concurrent: f.h.Limit(), latency: 0})
	}
	s := f.h.Snapshot()
	assert.Equal(t, 20, s.Limit)
	assert.Equal(t, 20.0, s.EstimatedLimit)
	assert.Zero(t, s.NoLoadLatency)
	assert.Equal(t, int64(6), s.Windows)
	// Then healthy windows grow it.
	for range 6 {
		f.driveWindow(testWindow, windowSpec{concurrent: f.h.Limit(), latency: littleBase})
	}
	assert.Greater(t, f.h.Limit(), 20)
	assert.Equal(t, littleBase, f.h.Snapshot().NoLoadLatency)
	assert.False(t, math.IsNaN(f.h.Snapshot().EstimatedLimit))
}
