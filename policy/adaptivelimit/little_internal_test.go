package adaptivelimit

import (
	"math"
	"testing"
	"time"
)

// Under a load below the limit that slow start reached, the calls in flight
// wander with arrivals: an epoch whose peak climbs after a doubling, with no
// call rejected, is the demand's own, not new slots filling up. Little must
// not judge the doubling unanswered and cut below the demand's peaks (which
// would shed calls in underload). The load: 30 calls in flight on average,
// 100 ms each, peaks alternating between 31 and 39; calls over the limit
// are rejected.
func TestLittleClimbWithoutRejectionsIsNotJudged(t *testing.T) {
	cfg := Config{Algorithm: Little, InitialLimit: 4, MaxLimit: 1000}.WithDefaults()
	var s little
	limit := float64(cfg.InitialLimit)
	const rtt = 100 * time.Millisecond
	var now int64
	above := false
	for i := 1; i <= 60; i++ {
		l := math.Floor(limit)
		peak := float64(31 + 8*((i+1)%2))
		inflight := math.Min(l, 30)
		rejects := 0
		if l < peak {
			rejects = int(peak-l) * 10
		}
		now += int64(time.Second)
		limit = s.update(&cfg, limit, figures{
			rtt: rtt, okRTT: rtt, maxIF: int(math.Min(l, peak)), samples: int(inflight * 10),
			rejects: rejects, duration: int64(time.Second), now: now,
		})
		if math.Floor(limit) >= 39 {
			above = true
		} else if above {
			t.Fatalf("window %d: limit %v under the demand's peaks of 39 after it had passed them", i, limit)
		}
	}
	if !above {
		t.Fatalf("the limit never passed the demand's peaks: %v", limit)
	}
}

// In cruise, a step up that goodput did not follow went past the knee: the
// lower limit served as much, so the limit goes back to it. It must not go
// below it on Little's law with the no-load latency, which, learnt from few
// samples of a slow dependency, may be low by a noise unit or more: the
// lower limit was shown to serve, the figure from the estimate was not (it
// held the limit at 9 in front of a capacity of 10 on the simulator's
// 500 ms dependency). The dependency: C=10, 500 ms a call; the no-load
// latency learnt 20% low; the step from 10 to 11 gains nothing.
func TestLittleCruiseStepPastTheKneeReturnsToTheLowerLimit(t *testing.T) {
	cfg := Config{Algorithm: Little, InitialLimit: 10, MaxLimit: 1000}.WithDefaults()
	const rtt = float64(500 * time.Millisecond)
	x := 10 / rtt // completions a nanosecond at the knee
	s := little{phase: littleCruise, r0: 0.8 * rtt, r0a: 0.8 * rtt, r0w: 40, r0ok: true, proven: true,
		lastAll: x, upEvery: littleUpFirst, steady: true}
	ref := littleRef{limit: 10, x: x, rtt: rtt, ok: rtt, all: x, step: math.Log(1.1) / 2, set: true, steady: true}
	// At 11 the same goodput, the latency 10% longer (a queue of one).
	next, changed := s.verify(&cfg, ref, false, 11, x, 1.1*rtt, 1.1*rtt, 20, 0.05, int64(10*time.Second))
	if !changed {
		t.Fatalf("a step up that goodput did not follow was not judged (e %.2f)", s.lastE)
	}
	if math.Floor(next) != 10 {
		t.Fatalf("after a step past the knee from 10 to 11 the limit is %v, want 10 (the lower limit)", next)
	}
}

// In cruise, growth accelerates (an eighth, a quarter, then doubling) while
// the latency stays where the streak began, within the noise. Where the
// noise is wide, the latency after a growth past the knee can stay within
// it although it rose with the limit: above the knee latency follows the
// limit, below it latency stays flat. A rise by half the growth or more
// ends the acceleration. The epoch (from the simulator's 3x timeout, σ 0.5,
// C=40, where the limit went on to 51): the streak began at 40 with 98 ms;
// at 45.6 the latency is 108 ms, 10% up for a growth of 13%, within a
// tolerance of 10%; r0 was learnt at 104 ms.
func TestLittleCruiseGrowthStopsAcceleratingWhenLatencyFollowsTheLimit(t *testing.T) {
	cfg := Config{Algorithm: Little, InitialLimit: 40, MaxLimit: 1000}.WithDefaults()
	ms := float64(time.Millisecond)
	s := little{windows: 10, phase: littleCruise, r0: 103.6 * ms, r0a: 103.6 * ms, r0w: littleR0Samples,
		r0ok: true, proven: true, upEvery: littleUpFirst, cv: 0.8, cvCount: 10, steady: true,
		step: littleStepFirst, streakRTT: 98 * ms, streakL: 40}
	// The epoch at 45.6: 396 calls in a second, 108.2 ms each, the limit full.
	const k = 396
	s.ek, s.edur, s.emax, s.erej = k, float64(time.Second), 45, 100
	s.esum, s.eok = 108.2*ms*k, 108.2*ms*k
	next := s.decide(&cfg, 45.6, int64(10*time.Second))
	if next > 47 {
		t.Fatalf("the limit grew from 45.6 to %.1f (C=40): the latency followed the last growth, the acceleration goes on", next)
	}
	if next <= 45.6 {
		t.Fatalf("the limit did not grow (%.1f): the latency is within the headroom of r0, and Little's law says it may", next)
	}
}
