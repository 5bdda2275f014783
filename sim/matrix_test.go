package sim

import (
	"flag"
	"sync"
	"testing"
)

var (
	flagSeeds  = flag.Int("sim.seeds", 0, "seeds per scenario (default 3; 1 under the race detector)")
	flagAlg    = flag.String("sim.alg", "little", "the limiter TestMatrix holds to the bar: an adaptivelimit algorithm or a report limiter's name")
	flagConfig = flag.String("sim.config", "", "adaptivelimit.Config fields for -sim.alg, as name=value,...")
)

// seedCount is the number of seeds per scenario: -sim.seeds, else 3, or 1
// under the race detector (which makes the DES about ten times slower).
func seedCount() int {
	switch {
	case *flagSeeds > 0:
		return *flagSeeds
	case raceEnabled:
		return 1
	}
	return 3
}

// runJudged runs spec and the reference on sc with seed and judges the run.
func runJudged(t *testing.T, sc *Scenario, spec Spec, seed uint64) *Result {
	t.Helper()
	ref := Measure(mustRun(t, sc, Reference(sc), seed))
	f := Measure(mustRun(t, sc, spec, seed))
	return &Result{Scenario: sc, Limiter: spec.Name, Seed: seed, Figures: f, Checks: Judge(sc, f, ref)}
}

// TestMatrix holds the limiter of -sim.alg (Little at its defaults unless
// told otherwise) to the bar on every scenario of the matrix and every
// seed, and prints a table of the worst figures per family (go test -v, or
// on failure). One line per failed check says which scenario, seed, figure
// and bar.
//
//	go test ./sim -run TestMatrix -v                          # Little
//	go test ./sim -run TestMatrix -v -sim.alg=vegas -sim.seeds=5
//	go test ./sim -run TestMatrix/ps -v -sim.alg=little -sim.config=window=500ms
func TestMatrix(t *testing.T) {
	t.Parallel()
	spec, err := ParseSpec(*flagAlg, *flagConfig)
	if err != nil {
		t.Fatal(err)
	}
	n := seedCount()
	var mu sync.Mutex
	var results []*Result
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		t.Logf("%s on the matrix, %d seed(s) per scenario:\n%s", spec.Name, n, ScoreTable(Score(sortResults(results))))
	})
	for _, fam := range Families() {
		t.Run(fam.Name, func(t *testing.T) {
			t.Parallel()
			for _, sc := range fam.Scenarios {
				t.Run(sc.Name, func(t *testing.T) {
					t.Parallel()
					for _, seed := range Seeds(fam.Name, n) {
						r := runJudged(t, sc, spec, seed)
						for _, line := range r.Failures() {
							t.Error(line)
						}
						mu.Lock()
						results = append(results, r)
						mu.Unlock()
					}
				})
			}
		})
	}
}
