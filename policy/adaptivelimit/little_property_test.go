package adaptivelimit

import (
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Little's estimate stays a finite number within [MinLimit, MaxLimit]
// whatever the windows say: figures no limiter produces in steady use
// (zero or one-nanosecond latencies, every sample a drop, latencies of
// hours, windows of a nanosecond, more calls in flight than the limit,
// rejects by the million) mixed with windows from a dependency that
// behaves, so that every phase is reached. A NaN or an infinity would
// reach callers through an integer conversion, which Go leaves undefined.
func TestLittleEstimateStaysFiniteAndWithinBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		minLimit := rapid.IntRange(1, 8).Draw(t, "min")
		maxLimit := rapid.IntRange(minLimit, 5000).Draw(t, "max")
		cfg := Config{
			Algorithm:    Little,
			MinLimit:     minLimit,
			MaxLimit:     maxLimit,
			InitialLimit: rapid.IntRange(minLimit, maxLimit).Draw(t, "initial"),
			Window:       time.Duration(rapid.Int64Range(int64(time.Millisecond), int64(10*time.Second)).Draw(t, "window")),
		}.WithDefaults()
		var s little
		limit := float64(cfg.InitialLimit)
		// Latencies drawn on a log scale, from a nanosecond to an hour,
		// or exactly zero.
		latency := func(label string) time.Duration {
			if rapid.IntRange(0, 9).Draw(t, label+"-zero") == 0 {
				return 0
			}
			return time.Duration(math.Exp(rapid.Float64Range(0, math.Log(float64(time.Hour))).Draw(t, label)))
		}
		// Most windows come from a dependency that behaves (a FIFO of C
		// workers of base latency r under a demand of calls in flight,
		// by Little's law, with noise and a timeout), so that the
		// estimate reaches every phase; the others are arbitrary.
		capacity := float64(rapid.IntRange(1, 2000).Draw(t, "capacity"))
		base := math.Exp(rapid.Float64Range(math.Log(float64(time.Microsecond)), math.Log(float64(5*time.Second))).Draw(t, "base"))
		timeout := base * rapid.Float64Range(1.5, 20).Draw(t, "timeout")
		sane := rapid.Float64Range(0, 1).Draw(t, "sane")
		var now int64
		windows := rapid.IntRange(1, 150).Draw(t, "windows")
		for i := range windows {
			var f figures
			if rapid.Float64Range(0, 1).Draw(t, "kind") < sane {
				demand := capacity * math.Exp(rapid.Float64Range(-2, 2.5).Draw(t, "load"))
				l := math.Floor(limit)
				inflight := math.Min(l, demand)
				lat := base * math.Max(1, inflight/capacity) * math.Exp(rapid.Float64Range(-0.5, 0.5).Draw(t, "noise"))
				dur := int64(cfg.Window)
				k := int(math.Min(inflight*float64(dur)/lat, 1e6))
				drops := 0
				if lat > timeout {
					drops, lat = k, timeout
				} else if lat > timeout/2 {
					drops = k / 10
				}
				rejects := 0
				if demand > l {
					rejects = int(math.Min((demand-l)*float64(dur)/lat, 1e6))
				}
				f = figures{
					rtt: time.Duration(lat), okRTT: time.Duration(lat),
					maxIF: int(math.Ceil(inflight)), samples: k, drops: drops, rejects: rejects, duration: dur,
				}
			} else {
				k := rapid.IntRange(0, 100000).Draw(t, "samples")
				d := rapid.IntRange(0, k).Draw(t, "drops")
				rtt := latency("rtt")
				ok := rtt
				if d > 0 && d < k {
					ok = latency("ok")
				}
				f = figures{
					rtt:      rtt,
					okRTT:    ok,
					maxIF:    rapid.IntRange(0, 2*maxLimit+10).Draw(t, "maxIF"),
					samples:  k,
					drops:    d,
					rejects:  rapid.IntRange(0, 1000000).Draw(t, "rejects"),
					duration: int64(math.Exp(rapid.Float64Range(0, math.Log(float64(time.Minute))).Draw(t, "duration"))),
					overload: rapid.IntRange(0, 19).Draw(t, "overload") == 0,
				}
			}
			now += f.duration
			f.now = now
			limit = s.update(&cfg, limit, f)
			if math.IsNaN(limit) || math.IsInf(limit, 0) || limit < float64(cfg.MinLimit) || limit > float64(cfg.MaxLimit) {
				t.Fatalf("window %d: estimate %v outside [%d, %d]", i, limit, cfg.MinLimit, cfg.MaxLimit)
			}
			for name, v := range map[string]float64{"r0": s.r0, "r0a": s.r0a, "f0": s.f0, "cv": s.cv, "step": s.step} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("window %d: %s is %v", i, name, v)
				}
			}
		}
	})
}
