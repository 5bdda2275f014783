package adaptivelimit_test

// Reference models of the three algorithms, written from
// /work/shared/reference/netflix-algorithms.md independently of the
// package's code, and tests that drive a limiter window by window on the
// manual clock and compare its limit with the model after every window.

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// gradient2Model is Gradient2 as netflix-algorithms.md writes it.
type gradient2Model struct {
	smoothing, rttTolerance float64
	longWindow, queueSize   int
	minLimit, maxLimit      float64
	ceiling                 float64 // 0: off; else the LatencyCeiling extension

	estimated float64
	longRtt   float64
	samples   int
	sum       float64
}

func (m *gradient2Model) add(rtt float64) float64 {
	if m.samples < 10 {
		m.samples++
		m.sum += rtt
		m.longRtt = m.sum / float64(m.samples)
	} else {
		f := 2 / float64(m.longWindow+1)
		m.longRtt = m.longRtt*(1-f) + rtt*f
	}
	return m.longRtt
}

func (m *gradient2Model) update(rtt float64, inflight int) {
	queue := float64(m.queueSize)
	long := m.add(rtt)
	if long/rtt > 2 {
		m.longRtt = m.longRtt * 0.95
	}
	overload := m.ceiling > 0 && rtt > m.ceiling
	if !overload && float64(inflight) < m.estimated/2 {
		return
	}
	gradient := math.Max(0.5, math.Min(1.0, m.rttTolerance*long/rtt))
	if overload {
		gradient = 0.5
	}
	next := m.estimated*gradient + queue
	next = m.estimated*(1-m.smoothing) + next*m.smoothing
	m.estimated = math.Max(m.minLimit, math.Min(m.maxLimit, next))
}

// aimdModel is AIMD as netflix-algorithms.md writes it.
type aimdModel struct {
	backoffRatio       float64
	minLimit, maxLimit int
	limit              int
}

func (m *aimdModel) update(didDrop bool, inflight int) {
	if didDrop {
		m.limit = int(float64(m.limit) * m.backoffRatio)
	} else if inflight*2 >= m.limit {
		m.limit = m.limit + 1
	}
	if m.limit < m.minLimit {
		m.limit = m.minLimit
	}
	if m.limit > m.maxLimit {
		m.limit = m.maxLimit
	}
}

// vegasModel is VEGAS as netflix-algorithms.md writes it, with the probe
// jitter schedule the package documents and bounds [minLimit, maxLimit].
type vegasModel struct {
	smoothing          float64
	probeMultiplier    int
	minLimit, maxLimit float64

	estimated  float64
	rttNoLoad  float64
	probeCount int
	probes     int
	probed     int // how many probes happened, for the test's own checks
}

// modelLog10 is LOG10: the integer log10, at least 1.
func modelLog10(x int) int {
	if x < 1 {
		return 1
	}
	return max(1, len(strconv.Itoa(x))-1)
}

func modelJitter(k int) float64 {
	return 0.5 + 0.5*math.Mod(float64(k+1)*0.6180339887498949, 1)
}

func (m *vegasModel) update(rtt float64, inflight int, didDrop bool) {
	m.probeCount++
	if modelJitter(m.probes)*float64(m.probeMultiplier)*m.estimated <= float64(m.probeCount) {
		m.probes++
		m.probed++
		m.probeCount = 0
		m.rttNoLoad = rtt
		return
	}
	if m.rttNoLoad == 0 || rtt < m.rttNoLoad {
		m.rttNoLoad = rtt
		return
	}
	queue := math.Ceil(m.estimated * (1 - m.rttNoLoad/rtt))
	var next float64
	if didDrop {
		next = m.estimated - float64(modelLog10(int(m.estimated)))
	} else if float64(inflight)*2 < m.estimated {
		return
	} else {
		limit := int(m.estimated)
		alpha, beta, threshold := 3*modelLog10(limit), 6*modelLog10(limit), modelLog10(limit)
		switch {
		case queue <= float64(threshold):
			next = m.estimated + float64(beta)
		case queue < float64(alpha):
			next = m.estimated + float64(modelLog10(int(m.estimated)))
		case queue > float64(beta):
			next = m.estimated - float64(modelLog10(int(m.estimated)))
		default:
			return
		}
	}
	next = math.Max(m.minLimit, math.Min(m.maxLimit, next))
	m.estimated = (1-m.smoothing)*m.estimated + m.smoothing*next
}

// phase is a run of windows of one kind.
type phase struct {
	name    string
	windows int
	// spec returns the window to drive given the current limit and the
	// window's index within the phase.
	spec func(limit, i int) windowSpec
}

const testWindow = 10 * time.Second

func TestGradient2MatchesModel(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{MinWindowSamples: 1, Window: testWindow})
	m := &gradient2Model{smoothing: 0.2, rttTolerance: 1.5, longWindow: 600, queueSize: 4,
		minLimit: 1, maxLimit: 200, estimated: 20}
	base := 20 * time.Millisecond
	phases := []phase{
		{"healthy", 40, func(limit, i int) windowSpec { return windowSpec{concurrent: limit, latency: base} }},
		{"app-limited", 10, func(limit, i int) windowSpec { return windowSpec{concurrent: limit / 4, latency: 3 * base} }},
		{"overloaded", 30, func(limit, i int) windowSpec {
			lat := time.Duration(float64(base) * math.Pow(1.2, float64(i+1)))
			return windowSpec{concurrent: limit, latency: min(lat, 5*time.Second), drops: 1}
		}},
		{"recovering", 120, func(limit, i int) windowSpec { return windowSpec{concurrent: limit, latency: base} }},
	}
	limits := drivePhases(t, f, phases, func(spec windowSpec, maxIF int) {
		m.update(float64(spec.latency), maxIF)
	}, func(t *testing.T, s adaptivelimit.Snapshot) {
		assert.InDelta(t, m.estimated, s.EstimatedLimit, 1e-9, "estimate")
		assert.Equal(t, int(m.estimated), s.Limit, "limit")
		assert.Equal(t, time.Duration(m.longRtt), s.LongLatency, "long-term average")
	})
	// The phases did what their names say.
	assert.Greater(t, limits["healthy"][1], limits["healthy"][0])
	assert.Equal(t, limits["app-limited"][1], limits["app-limited"][0])
	assert.Less(t, limits["overloaded"][1], limits["overloaded"][0]/2)
	assert.Greater(t, limits["recovering"][1], limits["overloaded"][1]*2)
}

func TestAIMDMatchesModel(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, MinWindowSamples: 1, Window: testWindow,
		InitialLimit: 10, MaxLimit: 60})
	m := &aimdModel{backoffRatio: 0.9, minLimit: 1, maxLimit: 60, limit: 10}
	phases := []phase{
		{"healthy", 60, func(limit, i int) windowSpec { return windowSpec{concurrent: limit, latency: time.Second} }},
		{"app-limited", 10, func(limit, i int) windowSpec { return windowSpec{concurrent: max(1, limit/2-1), latency: time.Second} }},
		{"overloaded", 30, func(limit, i int) windowSpec {
			return windowSpec{concurrent: limit, latency: 5 * time.Second, drops: 1 + i%3}
		}},
		{"recovering", 40, func(limit, i int) windowSpec { return windowSpec{concurrent: limit/2 + 1, latency: time.Second} }},
	}
	limits := drivePhases(t, f, phases, func(spec windowSpec, maxIF int) {
		m.update(spec.drops > 0, maxIF)
	}, func(t *testing.T, s adaptivelimit.Snapshot) {
		assert.Equal(t, m.limit, s.Limit, "limit")
		assert.Equal(t, float64(m.limit), s.EstimatedLimit)
		assert.Zero(t, s.LongLatency)
	})
	assert.Equal(t, 60, limits["healthy"][1], "healthy grows by one per window up to maxLimit")
	assert.Equal(t, limits["app-limited"][1], limits["app-limited"][0])
	assert.Equal(t, 1, limits["overloaded"][1], "backs off down to minLimit")
	assert.Equal(t, 41, limits["recovering"][1])
}

func TestVegasMatchesModel(t *testing.T) {
	f := newFixture(t, adaptivelimit.Config{Algorithm: adaptivelimit.Vegas, MinWindowSamples: 1, Window: testWindow,
		ProbeMultiplier: 1, MaxLimit: 120})
	m := &vegasModel{smoothing: 1, probeMultiplier: 1, minLimit: 1, maxLimit: 120, estimated: 20}
	base := 20 * time.Millisecond
	phases := []phase{
		{"no load", 12, func(limit, i int) windowSpec { return windowSpec{concurrent: limit, latency: base} }},
		{"mild queueing", 16, func(limit, i int) windowSpec {
			return windowSpec{concurrent: limit, latency: base + time.Duration(i+1)*base/100}
		}},
		{"app-limited", 5, func(limit, i int) windowSpec { return windowSpec{concurrent: limit / 3, latency: 2 * base} }},
		{"queueing", 25, func(limit, i int) windowSpec {
			return windowSpec{concurrent: limit, latency: base + time.Duration(i+1)*base/4}
		}},
		{"drops", 8, func(limit, i int) windowSpec { return windowSpec{concurrent: limit, latency: 3 * base, drops: 2} }},
		{"recovering", 150, func(limit, i int) windowSpec { return windowSpec{concurrent: limit, latency: base + base/10} }},
	}
	drivePhases(t, f, phases, func(spec windowSpec, maxIF int) {
		m.update(float64(spec.latency), maxIF, spec.drops > 0)
	}, func(t *testing.T, s adaptivelimit.Snapshot) {
		assert.InDelta(t, m.estimated, s.EstimatedLimit, 1e-9, "estimate")
		assert.Equal(t, int(m.estimated), s.Limit, "limit")
		assert.Equal(t, time.Duration(m.rttNoLoad), s.NoLoadLatency, "no-load latency")
	})
	assert.GreaterOrEqual(t, m.probed, 2, "the run must include probes")
}

// drivePhases drives the phases window by window, calls update with each
// window's figures (the model's update) and then check with the limiter's
// snapshot. It returns each phase's limit before and after.
func drivePhases(t *testing.T, f *fixture, phases []phase, update func(windowSpec, int),
	check func(*testing.T, adaptivelimit.Snapshot)) map[string][2]int {
	t.Helper()
	limits := map[string][2]int{}
	windows := int64(0)
	for _, ph := range phases {
		before := f.h.Limit()
		for i := range ph.windows {
			spec := ph.spec(f.h.Limit(), i)
			spec.concurrent = min(spec.concurrent, f.h.Limit())
			f.driveWindow(testWindow, spec)
			windows++
			maxIF := max(spec.concurrent, 1)
			update(spec, maxIF)
			s := f.h.Snapshot()
			require.Equal(t, windows, s.Windows, "%s window %d", ph.name, i)
			require.Equal(t, spec.latency, s.WindowLatency, "%s window %d", ph.name, i)
			require.Equal(t, maxIF, s.MaxInFlight, "%s window %d", ph.name, i)
			require.Equal(t, spec.concurrent+1, s.WindowSamples, "%s window %d", ph.name, i)
			require.Equal(t, spec.drops > 0, s.WindowDropped, "%s window %d", ph.name, i)
			check(t, s)
			if t.Failed() {
				t.Fatalf("%s window %d: limit %d, snapshot %+v", ph.name, i, f.h.Limit(), s)
			}
		}
		limits[ph.name] = [2]int{before, f.h.Limit()}
		t.Logf("%-12s limit %3d -> %3d", ph.name, before, f.h.Limit())
	}
	return limits
}
