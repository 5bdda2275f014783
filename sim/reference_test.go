package sim

import (
	"testing"
	"time"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// TestLibraryMatchesReference checks that the library's Gradient2, AIMD and
// Vegas move the limit exactly as the reference arithmetic on this
// package's model of r4c's windowing, sample for sample, on the old
// simulator's overload, capacity-drop and latency-shift runs and on matrix
// scenarios with few samples a window, small and large limits, drops and
// processor sharing.
func TestLibraryMatchesReference(t *testing.T) {
	t.Parallel()
	pairs := []struct{ lib, ref Spec }{
		{Algorithm(adaptivelimit.Gradient2), RefGradient2()},
		{Algorithm(adaptivelimit.AIMD), RefAIMD()},
		{Algorithm(adaptivelimit.Vegas), RefVegas()},
	}
	var scs []*Scenario
	for _, sc := range legacyScenarios() {
		switch sc.Name {
		case "overload2x", "capdrop", "latshift":
			scs = append(scs, sc)
		}
	}
	small := shape(FIFO, 4, 20*time.Millisecond, Service{Sigma: 0.5}, 10, 3)
	large := shape(FIFO, 500, 500*time.Millisecond, Service{Sigma: 0.5}, 10, 3)
	large.Limits.MaxLimit = 1000
	slow := shape(FIFO, 10, 2*time.Second, Service{Sigma: 0.5}, 10, 3)
	slow.Phases[0].Duration = 90 * time.Second
	drops := shape(FIFO, 40, 100*time.Millisecond, Service{Sigma: 1.25}, 2, 3)
	pg := shape(PS, 8, 7600*time.Microsecond, Service{Sigma: 0.25}, 10, 4)
	pg.Contention = 0.02
	high := shape(FIFO, 40, 100*time.Millisecond, Service{Sigma: 0.5}, 10, 3)
	high.Limits = Limits{InitialLimit: 400, MaxLimit: 400}
	scs = append(scs, small, large, slow, drops, pg, high)
	for _, sc := range scs {
		for _, p := range pairs {
			a, b := mustRun(t, sc, p.lib, 1), mustRun(t, sc, p.ref, 1)
			for i := range a.Samples {
				if a.Samples[i].Limit != b.Samples[i].Limit {
					t.Errorf("%s %s: limit %d, reference %d at %v", sc.Key(), p.lib.Name,
						a.Samples[i].Limit, b.Samples[i].Limit, a.Samples[i].At)
					break
				}
			}
		}
	}
}
