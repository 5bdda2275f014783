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
