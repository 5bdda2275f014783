package sim

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

func scenario(t *testing.T, key string) *Scenario {
	t.Helper()
	for _, sc := range Matrix() {
		if sc.Key() == key {
			return sc
		}
	}
	t.Fatalf("no scenario %s", key)
	return nil
}

// failed returns the names of r's failed checks.
func failed(r *Result) []string {
	var out []string
	for _, c := range r.Checks {
		if !c.OK && !slices.Contains(out, c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

// TestBarIsAttainable: on every scenario of the matrix the reference
// clears its own bar (every figure is defined, and no line asks for more
// than knowing C gives), and its figures are sane.
func TestBarIsAttainable(t *testing.T) {
	t.Parallel()
	for _, sc := range Matrix() {
		r := runJudged(t, sc, Reference(sc), Seeds(sc.Family, 1)[0])
		for _, line := range r.Failures() {
			t.Error(line)
		}
		if f := r.Figures; f.Goodput < 0.3 || f.P99 < 1 || f.LimitMean != 1 {
			t.Errorf("%s: the reference has goodput %.3f, p99 %.2f, limit/C %.2f", sc.Key(), f.Goodput, f.P99, f.LimitMean)
		}
	}
}

// TestBarCanFail: limiters known to be wrong fail the lines they should.
func TestBarCanFail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		scenario string
		spec     Spec
		want     []string
	}{
		// A limit of 4C queues 3C calls: p99 twice the bulkhead's, never in the band.
		{"overload/2x", Bulkhead("bulkhead-4C", 4), []string{"p99", "settle"}},
		// Half the capacity serves half.
		{"capacity/C=40", Bulkhead("half", 0.5), []string{"goodput", "settle", "collapse"}},
		// Without a limit, a dependency that serves every abandoned call
		// collapses (goodput 0 once the backlog passes the timeout).
		{"dynamics/wasted-work", Bulkhead("none", 1000), []string{"goodput", "p99", "settle", "collapse"}},
		// 30 slots for 20 erlangs reject about 1.5%: goodput holds, shed does not.
		{"overload/underload-0.5x", Bulkhead("0.75C", 0.75), []string{"shed"}},
	}
	for _, c := range cases {
		r := runJudged(t, scenario(t, c.scenario), c.spec, 1)
		if got := failed(r); !slices.Equal(got, c.want) {
			t.Errorf("%s %s: failed %v, want %v\n%s", c.scenario, c.spec.Name, got, c.want, strings.Join(r.Failures(), "\n"))
		}
	}
}

// TestJudgeLines checks the bar's arithmetic on made-up figures.
func TestJudgeLines(t *testing.T) {
	t.Parallel()
	sc := scenario(t, "dynamics/step-down")
	ref := Figures{Goodput: 0.9, P99: 3, Good: make([]float64, 70), Servable: make([]float64, 70)}
	f := Figures{Goodput: 0.89, P99: 3.95, Settle: []Settle{{At: 0, First: 0, Hold: 0}, {At: 30e9, First: 2e9, Hold: 11e9}},
		Good: make([]float64, 70), Servable: make([]float64, 70)}
	for i := range 70 {
		ref.Good[i], ref.Servable[i], f.Servable[i], f.Good[i] = 100, 110, 110, 100
	}
	for i := 40; i < 50; i++ {
		f.Good[i] = 79 // 0.79 of what the reference served
	}
	checks := Judge(sc, f, ref)
	var got []string
	for _, c := range checks {
		if !c.OK {
			got = append(got, c.Name)
		}
	}
	// goodput 0.89 < min(0.95, 0.9); p99 3.95/3 > 1.3; the second settle
	// 11 s > 10 s; a stretch at 0.79 < 0.8; no shed line (not underload).
	if want := []string{"goodput", "p99", "settle", "collapse"}; !slices.Equal(got, want) {
		t.Errorf("failed %v, want %v", got, want)
	}
	if len(checks) != 5 {
		t.Errorf("%d checks, want goodput, p99, two settles and collapse", len(checks))
	}
	r := &Result{Scenario: sc, Limiter: "x", Seed: 2, Figures: f, Checks: checks}
	for _, line := range r.Failures() {
		if !strings.HasPrefix(line, "dynamics/step-down seed 2 x: ") {
			t.Errorf("failure line %q does not say scenario, seed and limiter", line)
		}
	}
	table := ScoreTable(Score([]*Result{r}))
	for _, want := range []string{"dynamics", "0/1", "✗ 0.890/0.900 step-down#2", "✗ 1.32x", "✗ 11.0s", "✗ 0.790", "dynamics failing: step-down"} {
		if !strings.Contains(table, want) {
			t.Errorf("score table lacks %q:\n%s", want, table)
		}
	}
}

// TestParseSpec: algorithms by name, with config; report limiters by
// name; clear errors.
func TestParseSpec(t *testing.T) {
	t.Parallel()
	s, err := ParseSpec("little", "")
	if err != nil || s.Name != "r4c-little" {
		t.Fatalf("little: %v %v", s.Name, err)
	}
	s, err = ParseSpec("vegas", "smoothing=0.5, window=500ms, minLimit=2")
	if err != nil || s.Name != "r4c-vegas{smoothing=0.5, window=500ms, minLimit=2}" {
		t.Fatalf("vegas with config: %v %v", s.Name, err)
	}
	// The config reaches the limiter: window 500 ms, min limit 2 (the
	// scenario sets neither).
	l, err := s.New(Env{Clock: &vclock{}, Scenario: scenario(t, "overload/2x")})
	if err != nil {
		t.Fatal(err)
	}
	cfg := l.(r4c).h.Config()
	if cfg.Algorithm != adaptivelimit.Vegas || cfg.Smoothing != 0.5 || cfg.Window != 500e6 || cfg.MinLimit != 2 {
		t.Errorf("config %+v", cfg)
	}
	if s, err := ParseSpec("failsafe-go", ""); err != nil || !s.Peer {
		t.Errorf("failsafe-go: %v %v", s.Name, err)
	}
	for _, bad := range []struct{ alg, config, want string }{
		{"nope", "", "unknown limiter"},
		{"failsafe-go", "x=1", "takes no config"},
		{"little", "smoothing", "want name=value"},
		{"little", "nofield=1", "no field"},
		{"little", "smoothing=abc", "smoothing=abc"},
		{"little", "dropOn=x", "cannot be set"},
	} {
		if _, err := ParseSpec(bad.alg, bad.config); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseSpec(%q, %q) = %v, want %q", bad.alg, bad.config, err, bad.want)
		}
	}
}

// TestMatrixShape: every scenario is valid and uniquely named, the
// families are the issue's, and the holdout shapes are fixed, many, and
// run on seeds of their own.
func TestMatrixShape(t *testing.T) {
	t.Parallel()
	var names []string
	keys := map[string]bool{}
	for _, f := range Families() {
		names = append(names, f.Name)
		for _, sc := range f.Scenarios {
			if err := sc.Validate(); err != nil {
				t.Error(err)
			}
			if keys[sc.Key()] || strings.Count(sc.Key(), "/") != 1 {
				t.Errorf("scenario key %q is repeated or has a slash in its name", sc.Key())
			}
			keys[sc.Key()] = true
			if sc.Family != f.Name || sc.Title == "" {
				t.Errorf("%s: family %q, title %q", sc.Key(), sc.Family, sc.Title)
			}
		}
	}
	want := []string{"capacity", "latency", "noise", "timeouts", "overload", "ps", "start", "dynamics", "holdout"}
	if !slices.Equal(names, want) {
		t.Errorf("families %v, want %v", names, want)
	}
	a, b := Holdout(HoldoutShapes), Holdout(HoldoutShapes)
	if len(a) < 20 {
		t.Errorf("%d holdout shapes, want at least 20", len(a))
	}
	for i := range a {
		if a[i].Key() != b[i].Key() || a[i].Base != b[i].Base {
			t.Errorf("the holdout draw is not fixed: %s, then %s", a[i].Key(), b[i].Key())
		}
	}
	for _, seed := range Seeds("holdout", 10) {
		if slices.Contains(Seeds("capacity", 10), seed) {
			t.Errorf("holdout seed %d is a tuning seed", seed)
		}
	}
}

// A collapse figure of NaN (no stretch had anything to serve) is never the
// worst of a family: any measured figure is worse.
func TestWorseCollapseIgnoresNaN(t *testing.T) {
	nan := math.NaN()
	if worse("collapse", nan, 0.9) {
		t.Error("NaN is worse than 0.9")
	}
	if !worse("collapse", 0.9, nan) {
		t.Error("0.9 is not worse than NaN")
	}
	if !worse("collapse", 0.5, 0.9) || worse("collapse", 0.9, 0.5) {
		t.Error("0.5 and 0.9 compared the wrong way")
	}
	if !worse("goodput", nan, 0.9) {
		t.Error("a NaN goodput is no longer the worst")
	}
}
