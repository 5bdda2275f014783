package adaptivelimit

import (
	"math"
	"testing"
	"time"
)

// littleModel runs Little window by window against a model dependency: a
// FIFO queue in front of 40 workers serving in 100 ms (with a 3% wobble),
// under a load that always fills the limit. Every window holds hundreds of
// samples, so Little judges each one: every window is a full recompute.
type littleModel struct {
	s     little
	cfg   Config
	limit float64
	now   int64
	i     int
}

func newLittleModel(initial int) *littleModel {
	cfg := Config{Algorithm: Little, InitialLimit: initial, MaxLimit: 1000}.WithDefaults()
	return &littleModel{cfg: cfg, limit: float64(cfg.InitialLimit)}
}

// window makes one window's figures from the current limit, hands them to
// Little and returns the new limit.
func (m *littleModel) window() float64 {
	const c, svc = 40.0, float64(100 * time.Millisecond)
	m.i++
	l := math.Max(1, math.Floor(m.limit))
	rtt := svc * math.Max(1, l/c) * (1 + 0.03*math.Sin(float64(m.i)*1.7))
	m.now += int64(time.Second)
	m.limit = m.s.update(&m.cfg, m.limit, figures{
		rtt:      time.Duration(rtt),
		okRTT:    time.Duration(rtt),
		maxIF:    int(l),
		samples:  int(l * float64(time.Second) / rtt),
		duration: int64(time.Second),
		now:      m.now,
	})
	return m.limit
}

// TestLittleModelWindows checks that the model takes Little through its
// phases (slow start past the knee of 40, then cruise) and that it then
// holds the limit at the knee plus its headroom (at most 30% above it with
// the model's 3% wobble), from window 10 to 80.
func TestLittleModelWindows(t *testing.T) {
	m := newLittleModel(0)
	var top float64
	for n := 1; n <= 80; n++ {
		got := m.window()
		top = max(top, got)
		if n >= 10 && (got < 40 || got > 52) {
			t.Fatalf("window %d: limit %v, want 40..52", n, got)
		}
	}
	if top < 60 {
		t.Fatalf("slow start peaked at %v: it never went past the knee", top)
	}
}

// BenchmarkLittleRecompute is Little's recompute at the end of one window,
// alone: no call, no clock, no lock; the model's figures cost a few
// multiplications and a sine. ns/op is the cost per window.
func BenchmarkLittleRecompute(b *testing.B) {
	b.ReportAllocs()
	m := newLittleModel(0)
	for b.Loop() {
		m.window()
	}
	if m.limit < 1 {
		b.Fatal(m.limit)
	}
}
