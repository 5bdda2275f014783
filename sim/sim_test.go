package sim

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

var report = flag.Bool("report", false, "regenerate the tables of docs/adaptation.md and the charts in docs/img")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// seed is the seed of the report.
const seed = 1

var (
	matrixMu sync.Mutex
	matrix   map[string][]*Result // scenario name -> results in Specs order
)

// runMatrix runs every scenario against every limiter once per process.
func runMatrix(t *testing.T) map[string][]*Result {
	t.Helper()
	matrixMu.Lock()
	defer matrixMu.Unlock()
	if matrix != nil {
		return matrix
	}
	m := map[string][]*Result{}
	for _, sc := range Scenarios() {
		for _, spec := range Specs() {
			m[sc.Name] = append(m[sc.Name], NewResult(spec, Run(t, sc, spec, seed)))
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	matrix = m
	return m
}

func find(rs []*Result, name string) *Result {
	for _, r := range rs {
		if r.Spec.Name == name {
			return r
		}
	}
	panic("no result for " + name)
}

// TestScenarios runs every scenario against every limiter and checks the
// properties that make a limiter good, on the limiters that should have
// them.
func TestScenarios(t *testing.T) {
	m := runMatrix(t)
	for _, sc := range Scenarios() {
		t.Logf("%s\n%s", sc.Title, Table(sc, m[sc.Name]))
	}

	t.Run("little clears the bar", func(t *testing.T) {
		checkBar(t, LittleName, m)
	})

	for _, name := range []string{"r4c-gradient2", "r4c-aimd", "r4c-vegas", LittleName} {
		t.Run(name+" is sane", func(t *testing.T) {
			// Goodput near capacity under overload, no shedding in
			// underload, recovery once the capacity returns.
			for _, sc := range []string{"overload2x", "overload5x"} {
				if f := find(m[sc], name).All; f.Goodput < 0.97 || f.P99 > 4.5 {
					t.Errorf("%s: goodput %.3f (want >= 0.97), p99 %.2f (want <= 4.5)", sc, f.Goodput, f.P99)
				}
			}
			if f := find(m["underload"], name).All; f.Rejected > 0.005 {
				t.Errorf("underload: rejected %.4f (want <= 0.005)", f.Rejected)
			}
			if f := find(m["capdrop"], name).Phases[2]; f.Goodput < 0.95 || f.LimitMean < 0.75 {
				t.Errorf("capdrop after recovery: goodput %.3f (want >= 0.95), limit/C %.2f (want >= 0.75)", f.Goodput, f.LimitMean)
			}
		})
	}

	t.Run("model", func(t *testing.T) {
		// A limit fixed at the capacity never queues: its p99 is the
		// service time's, exp(2.326σ - σ²/2) = 2.82 for σ = 0.5.
		if f := find(m["overload2x"], "bulkhead-40").All; f.P99 < 2.7 || f.P99 > 2.95 || f.Goodput < 0.95 {
			t.Errorf("bulkhead at C under 2x: p99 %.2f (want 2.7..2.95), goodput %.3f", f.P99, f.Goodput)
		}
		// A limit of 4C queues 3C calls: p99 far above the bar (the bar
		// can fail).
		if f := find(m["overload2x"], "bulkhead-160").All; f.P99 <= BarP99 {
			t.Errorf("bulkhead at 4C under 2x: p99 %.2f, want above %.1f", f.P99, BarP99)
		}
		// Underload: nothing rejected by a limit that is never reached.
		if f := find(m["underload"], "bulkhead-160").All; f.Rejected != 0 || f.Goodput < 0.97 {
			t.Errorf("underload: rejected %.4f, goodput %.3f", f.Rejected, f.Goodput)
		}
	})
}

// checkBar checks the bar on the results of limiter name.
func checkBar(t *testing.T, name string, m map[string][]*Result) {
	t.Helper()
	for _, sc := range []string{"overload2x", "overload5x"} {
		f := find(m[sc], name).All
		if f.Goodput < BarGoodput {
			t.Errorf("%s: goodput %.3f, want >= %.2f", sc, f.Goodput, BarGoodput)
		}
		if f.P99 > BarP99 {
			t.Errorf("%s: p99 %.2f, want <= %.1f", sc, f.P99, BarP99)
		}
	}
	cd := find(m["capdrop"], name)
	if d := cd.All.Settle[1]; d < 0 || d > BarDrop {
		t.Errorf("capdrop 40 -> 10: within 25%% after %v, want <= %v", d, BarDrop)
	}
	if d := cd.All.Settle[2]; d < 0 || d > BarRecovery {
		t.Errorf("capdrop 10 -> 40: within 25%% after %v, want <= %v", d, BarRecovery)
	}
	for i, f := range cd.Phases {
		if f.Goodput < BarGoodput || f.P99 > BarP99 {
			t.Errorf("capdrop phase %d: goodput %.3f, p99 %.2f", i, f.Goodput, f.P99)
		}
	}
	if f := find(m["underload"], name).All; f.Rejected > 0.001 {
		t.Errorf("underload: rejected %.4f, want none", f.Rejected)
	}
	// The latency shift: learn the new normal, do not collapse.
	if f := find(m["latshift"], name).Phases[1]; f.Goodput < 0.95 || f.LimitMean < 0.75 || f.P99 > BarP99 {
		t.Errorf("latshift after the shift: goodput %.3f, limit/C %.2f, p99 %.2f", f.Goodput, f.LimitMean, f.P99)
	}
	if f := find(m["bursty"], name).All; f.Goodput < 0.95 || f.P99 > BarP99 {
		t.Errorf("bursty: goodput %.3f, p99 %.2f", f.Goodput, f.P99)
	}
}

// TestLittleOtherSeeds checks the bar's overload and capacity-drop figures
// of the library's Little on other seeds, so that it is not tuned to one.
func TestLittleOtherSeeds(t *testing.T) {
	scs := map[string]Scenario{}
	for _, sc := range Scenarios() {
		scs[sc.Name] = sc
	}
	spec := R4C(adaptivelimit.Little)
	for s := uint64(2); s <= 4; s++ {
		for _, name := range []string{"overload2x", "overload5x"} {
			f := Measure(Run(t, scs[name], spec, s))
			if f.Goodput < BarGoodput || f.P99 > BarP99 {
				t.Errorf("seed %d %s: goodput %.3f, p99 %.2f", s, name, f.Goodput, f.P99)
			}
		}
		f := Measure(Run(t, scs["capdrop"], spec, s))
		if f.Settle[1] < 0 || f.Settle[1] > BarDrop || f.Settle[2] < 0 || f.Settle[2] > BarRecovery {
			t.Errorf("seed %d capdrop: within 25%% after %v and %v", s, f.Settle[1], f.Settle[2])
		}
	}
}

// TestDeterministic runs the same seed twice and wants the same trace,
// for r4c (policy.System in the bubble) and for a peer (time.Now).
func TestDeterministic(t *testing.T) {
	sc := Scenarios()[3] // capdrop
	for _, spec := range []Spec{R4C(adaptivelimit.Little), Candidate(DefaultCandidateParams), R4C(adaptivelimit.Gradient2), Failsafe()} {
		a, b := Run(t, sc, spec, 7), Run(t, sc, spec, 7)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs with seed 7 differ", spec.Name)
		}
		if c := Run(t, sc, spec, 8); reflect.DeepEqual(a.Calls, c.Calls) {
			t.Errorf("%s: seeds 7 and 8 gave the same calls", spec.Name)
		}
	}
}

// TestLibraryMatchesReference checks that the library's Gradient2, AIMD and
// Vegas move the limit exactly as this package's model of r4c's windowing
// running the reference arithmetic (so the model is the library's), and
// that the library's Little moves it exactly as its design (candidate.go)
// with DefaultCandidateParams on that model.
func TestLibraryMatchesReference(t *testing.T) {
	pairs := []struct{ lib, ref Spec }{
		{R4C(adaptivelimit.Gradient2), RefGradient2()},
		{R4C(adaptivelimit.AIMD), RefAIMD()},
		{R4C(adaptivelimit.Vegas), RefVegas()},
		{R4C(adaptivelimit.Little), Candidate(DefaultCandidateParams)},
	}
	for _, sc := range []Scenario{Scenarios()[1], Scenarios()[3], Scenarios()[4]} { // overload2x, capdrop, latshift
		for _, p := range pairs {
			a, b := Run(t, sc, p.lib, seed), Run(t, sc, p.ref, seed)
			for i := range a.Samples {
				if a.Samples[i].Limit != b.Samples[i].Limit {
					t.Errorf("%s %s: limit %d, reference %d at %v", sc.Name, p.lib.Name,
						a.Samples[i].Limit, b.Samples[i].Limit, a.Samples[i].At)
					break
				}
			}
		}
	}
}

// TestDependency checks the model on its own: FIFO service by C workers,
// the client timeout, and the change of workers.
func TestDependency(t *testing.T) {
	sc := Scenario{Name: "t", Phases: []Phase{
		{Duration: 10 * time.Second, Load: 3, Workers: 4, Scale: 1},
		{Duration: 10 * time.Second, Load: 0.5, Workers: 40, Scale: 1},
	}}
	tr := Run(t, sc, Bulkhead("unlimited", 1<<20), 3)
	var timedOut, maxBusy int
	for _, c := range tr.Calls {
		if !c.OK {
			timedOut++
			if c.Latency != ClientTimeout {
				t.Fatalf("a timed-out call took %v, want %v", c.Latency, ClientTimeout)
			}
		} else if c.Latency > ClientTimeout {
			t.Fatalf("an answered call took %v, more than the timeout", c.Latency)
		}
	}
	for _, s := range tr.Samples {
		if s.At < 10*time.Second {
			maxBusy = max(maxBusy, s.Busy)
		}
		if s.Busy > 40 {
			t.Fatalf("%d busy workers at %v", s.Busy, s.At)
		}
	}
	if last := tr.Samples[len(tr.Samples)-1]; last.Busy < 10 || last.InFlight != last.Busy {
		t.Errorf("at 0.5x of 40 workers: %d busy, %d in flight (want about 20, none queued)", last.Busy, last.InFlight)
	}
	if maxBusy != 4 {
		t.Errorf("at most %d workers busy with 4 workers, want 4", maxBusy)
	}
	if timedOut == 0 {
		t.Error("no call timed out at 3x overload of 4 workers without a limit")
	}
	last := tr.Samples[len(tr.Samples)-1]
	if last.Queued != 0 {
		t.Errorf("%d calls still queued once the workers are back to 40", last.Queued)
	}
}

// TestWriteReport regenerates the tables of docs/adaptation.md (between its
// markers) and the charts in docs/img. Run it with
//
//	go test ./sim -run TestWriteReport -report
func TestWriteReport(t *testing.T) {
	if !*report {
		t.Skip("run with -report to regenerate docs/adaptation.md and docs/img")
	}
	m := runMatrix(t)
	docs := filepath.Join("..", "docs")
	img := filepath.Join(docs, "img")
	if err := os.MkdirAll(img, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("Generated by `go test ./sim -run TestWriteReport -report` (seed 1); do not edit by hand.\n\n")
	b.WriteString("### The bar\n\nFigures that miss the bar are in bold.\n\n")
	b.WriteString(Scoreboard(m))
	for _, sc := range Scenarios() {
		fmt.Fprintf(&b, "\n### %s\n\n%s\n%s\n![%s](img/%s.png)\n\n[SVG](img/%s.svg)\n", sc.Name, sc.Title, Table(sc, m[sc.Name]), sc.Name, sc.Name, sc.Name)
		if err := Chart(sc, m[sc.Name], img); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(docs, "adaptation.md")
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- tables:begin -->\n", "<!-- tables:end -->"
	s := string(old)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q markers", path, begin, end)
	}
	s = s[:i+len(begin)] + b.String() + s[j:]
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
