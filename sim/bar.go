package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The bar of issue 9, which the recommended algorithm must clear on every
// scenario and seed.
const (
	// BarGoodput: goodput at least min(BarGoodput, the reference's).
	BarGoodput = 0.95
	// BarP99: admitted p99 at most BarP99 times the reference's.
	BarP99 = 1.3
	// BarSettle: within SettleBand of C, holding for SettleHold, at most
	// BarSettle after the start and after each change.
	BarSettle = 10 * time.Second
	// BarShed: under BarShed of the calls rejected in underload.
	BarShed = 0.005
)

// Reference returns the limiter a scenario's bar compares with: the oracle
// where the capacity changes, else a bulkhead fixed at the true C (for PS,
// at k).
func Reference(sc *Scenario) Spec {
	if sc.Varies() {
		return Oracle()
	}
	return Bulkhead("bulkhead-C", 1)
}

// Check is one line of the bar for one run.
type Check struct {
	// Name is "goodput", "p99", "settle", "collapse" or "shed".
	Name string
	// Value is the run's figure and Bar the bound it was held to (a
	// settle time in seconds, -1 for never).
	Value, Bar float64
	OK         bool
	// Text says it in words, with the reference's figure.
	Text string
}

// Judge holds the figures f of a run of sc to the bar, against the
// figures ref of the reference (Reference(sc)) on the same seed.
func Judge(sc *Scenario, f, ref Figures) []Check {
	refName := Reference(sc).Name
	var out []Check
	bar := math.Min(BarGoodput, ref.Goodput)
	out = append(out, Check{Name: "goodput", Value: f.Goodput, Bar: bar, OK: f.Goodput >= bar,
		Text: fmt.Sprintf("goodput %.3f, bar %.3f = min(%.2f, %s's %.3f)", f.Goodput, bar, BarGoodput, refName, ref.Goodput)})

	r := f.P99 / ref.P99
	out = append(out, Check{Name: "p99", Value: r, Bar: BarP99, OK: r <= BarP99,
		Text: fmt.Sprintf("p99 %.2f = %.2fx %s's %.2f, bar %.2fx", f.P99, r, refName, ref.P99, BarP99)})

	for _, st := range f.Settle {
		v := st.Hold.Seconds()
		if st.Hold < 0 {
			v = -1
		}
		ok := st.Hold >= 0 && st.Hold <= BarSettle
		out = append(out, Check{Name: "settle", Value: v, Bar: BarSettle.Seconds(), OK: ok,
			Text: fmt.Sprintf("within ±%.0f%% of C after the change at %v: holding after %s (first entry %s), bar %v",
				100*SettleBand, st.At, fmtSettle(st.Hold), fmtSettle(st.First), BarSettle)})
	}

	worst, at := worstStretch(f, ref)
	c := Check{Name: "collapse", Value: worst, Bar: CollapseBelow, OK: !(worst < CollapseBelow)}
	c.Text = fmt.Sprintf("worst %v stretch: goodput %.3f of what could be served (from %v), bar %.2f",
		CollapseSpan, worst, at, CollapseBelow)
	if math.IsNaN(worst) {
		c.Text = fmt.Sprintf("worst %v stretch: none had anything to serve (the reference served nothing), bar %.2f",
			CollapseSpan, CollapseBelow)
	}
	out = append(out, c)

	if sc.Underload {
		out = append(out, Check{Name: "shed", Value: f.Rejected, Bar: BarShed, OK: f.Rejected < BarShed,
			Text: fmt.Sprintf("rejected %.2f%% in underload, bar %.2f%%", 100*f.Rejected, 100*BarShed)})
	}
	return out
}

// worstStretch returns the lowest goodput over a CollapseSpan stretch after
// the warm-up, and where it starts. What could be served in a stretch is
// the nominal figure (Figures.Servable) or, where lower, what the
// reference served in it: over ten seconds the service times' own noise
// moves the capacity (a clump of slow calls), and the reference shows it.
func worstStretch(f, ref Figures) (float64, time.Duration) {
	w := int(CollapseSpan / time.Second)
	worst, at := math.NaN(), time.Duration(-1)
	for s := int(Warmup / time.Second); s+w <= len(f.Good) && s+w <= len(ref.Good); s++ {
		var g, sv, rg float64
		for i := s; i < s+w; i++ {
			g += f.Good[i]
			sv += f.Servable[i]
			rg += ref.Good[i]
		}
		if d := math.Min(sv, rg); d > 0 {
			if r := g / d; !(r >= worst) {
				worst, at = r, time.Duration(s)*time.Second
			}
		}
	}
	return worst, at
}

func fmtSettle(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// Result is one limiter's run of one scenario on one seed, measured and
// judged.
type Result struct {
	Scenario *Scenario
	Limiter  string
	Seed     uint64
	Figures  Figures
	Checks   []Check
}

// Pass reports whether every check passed.
func (r *Result) Pass() bool {
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// Failures returns one line per failed check: scenario, seed, the figure
// and the bar.
func (r *Result) Failures() []string {
	var out []string
	for _, c := range r.Checks {
		if !c.OK {
			out = append(out, fmt.Sprintf("%s seed %d %s: %s", r.Scenario.Key(), r.Seed, r.Limiter, c.Text))
		}
	}
	return out
}

// check returns r's check named name with the worst value (the lowest for
// goodput and collapse, the highest otherwise; never counts as the
// highest settle), or nil.
func (r *Result) check(name string) *Check {
	var w *Check
	for i := range r.Checks {
		c := &r.Checks[i]
		if c.Name == name && (w == nil || worse(name, c.Value, w.Value)) {
			w = c
		}
	}
	return w
}

func worse(name string, a, b float64) bool {
	switch name {
	case "goodput":
		return a < b || math.IsNaN(a)
	case "collapse":
		// NaN: no stretch had anything to serve (the reference served
		// nothing either); the check does not apply, and any figure is
		// worse than none.
		return !math.IsNaN(a) && (a < b || math.IsNaN(b))
	case "settle":
		return b >= 0 && (a < 0 || a > b)
	}
	return a > b
}

// FamilyScore sums up one limiter's results on one family.
type FamilyScore struct {
	Family       string
	Runs, Passed int
	// The worst run of each check: its result and check, nil if none.
	Worst map[string]*Result
	// Failing lists the scenarios with a failed run, in matrix order.
	Failing []string
}

// sortResults sorts results in matrix order (families, scenarios, then
// seeds), whatever order the parallel runs ended in, and returns them.
func sortResults(results []*Result) []*Result {
	order := map[string]int{}
	for i, sc := range Matrix() {
		order[sc.Key()] = i
	}
	slices.SortStableFunc(results, func(a, b *Result) int {
		if d := order[a.Scenario.Key()] - order[b.Scenario.Key()]; d != 0 {
			return d
		}
		return int(a.Seed) - int(b.Seed)
	})
	return results
}

// Score sums results up by family, in the order families first appear.
func Score(results []*Result) []FamilyScore {
	var out []FamilyScore
	idx := map[string]int{}
	for _, r := range results {
		i, ok := idx[r.Scenario.Family]
		if !ok {
			i = len(out)
			idx[r.Scenario.Family] = i
			out = append(out, FamilyScore{Family: r.Scenario.Family, Worst: map[string]*Result{}})
		}
		fs := &out[i]
		fs.Runs++
		if r.Pass() {
			fs.Passed++
		} else if !slices.Contains(fs.Failing, shortName(r.Scenario)) {
			fs.Failing = append(fs.Failing, shortName(r.Scenario))
		}
		for _, name := range checkNames {
			c := r.check(name)
			if c == nil {
				continue
			}
			if w := fs.Worst[name]; w == nil || worse(name, c.Value, w.check(name).Value) {
				fs.Worst[name] = r
			}
		}
	}
	return out
}

var checkNames = []string{"goodput", "p99", "settle", "collapse", "shed"}

// worstCell formats the worst check name of fs: value, bar, scenario#seed.
func (fs FamilyScore) worstCell(name string) string {
	r := fs.Worst[name]
	if r == nil {
		return "-"
	}
	c := r.check(name)
	mark := ""
	if !c.OK {
		mark = "✗ "
	}
	var v string
	switch name {
	case "settle":
		v = "never"
		if c.Value >= 0 {
			v = fmt.Sprintf("%.1fs", c.Value)
		}
	case "p99":
		v = fmt.Sprintf("%.2fx", c.Value)
	case "shed":
		v = fmt.Sprintf("%.2f%%", 100*c.Value)
	default:
		v = fmt.Sprintf("%.3f", c.Value)
		if name == "goodput" {
			v += fmt.Sprintf("/%.3f", c.Bar)
		}
	}
	return fmt.Sprintf("%s%s %s#%d", mark, v, shortName(r.Scenario), r.Seed)
}

// shortName is a scenario's name, or for a holdout shape its number ("h07").
func shortName(sc *Scenario) string {
	if sc.Family == "holdout" {
		n, _, _ := strings.Cut(sc.Name, "-")
		return n
	}
	return sc.Name
}

// ScoreTable formats scores as a plain-text table: per family, the runs
// passed and the worst figure of each check (✗ where it misses the bar)
// with its scenario and seed.
func ScoreTable(scores []FamilyScore) string {
	head := []string{"family", "passed", "goodput/bar", "p99/ref", "settle", "worst 10s", "shed"}
	rows := [][]string{head}
	var runs, passed int
	for _, fs := range scores {
		runs += fs.Runs
		passed += fs.Passed
		row := []string{fs.Family, fmt.Sprintf("%d/%d", fs.Passed, fs.Runs)}
		for _, name := range checkNames {
			row = append(row, fs.worstCell(name))
		}
		rows = append(rows, row)
	}
	rows = append(rows, []string{"all", fmt.Sprintf("%d/%d", passed, runs)})
	width := make([]int, len(head))
	for _, row := range rows {
		for i, cell := range row {
			width[i] = max(width[i], len([]rune(cell)))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, cell := range row {
			fmt.Fprintf(&b, "%-*s  ", width[i], cell)
		}
		b.WriteString("\n")
	}
	for _, fs := range scores {
		if len(fs.Failing) > 0 {
			fmt.Fprintf(&b, "%s failing: %s\n", fs.Family, strings.Join(fs.Failing, " "))
		}
	}
	return b.String()
}
