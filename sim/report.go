package sim

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// ChartScenarios are the scenarios the report charts (seed 1): the shapes
// issue 9 found hard, and the hardest changes.
var ChartScenarios = []string{
	"capacity/C=4", "capacity/C=1000", "latency/base=1ms", "latency/base=500ms",
	"timeouts/3x-sigma=1.25", "ps/postgres-4x", "start/C=40-initial=10C",
	"dynamics/step-down", "dynamics/sinusoid",
}

// chartSpecs are the limiters drawn in the charts (all of them would not be
// legible); the first is drawn thicker.
var chartSpecs = []string{"r4c-little", "r4c-gradient2", "r4c-aimd", "r4c-vegas", "failsafe-go", "gcl-gradient2", "oracle"}

// Report is every limiter's results over a matrix.
type Report struct {
	Specs    []Spec
	Families []Family
	Seeds    int
	// Results holds, per limiter name, its results in matrix order.
	Results map[string][]*Result
	// Traces holds, per charted scenario key and limiter name, the trace of
	// the first seed.
	Traces map[string]map[string]*Trace
}

// RunReport runs every spec over every scenario of fams with seeds seeds
// each (the scenarios in parallel subtests of t), judges each run against
// its scenario's reference, and keeps the first seed's traces of the
// scenarios named in charts.
func RunReport(t *testing.T, specs []Spec, fams []Family, seeds int, charts []string) *Report {
	t.Helper()
	r := &Report{Specs: specs, Families: fams, Seeds: seeds,
		Results: map[string][]*Result{}, Traces: map[string]map[string]*Trace{}}
	var mu sync.Mutex
	byScenario := map[string]map[string][]*Result{}
	t.Run("runs", func(t *testing.T) {
		for _, fam := range fams {
			for _, sc := range fam.Scenarios {
				t.Run(sc.Key(), func(t *testing.T) {
					t.Parallel()
					res := map[string][]*Result{}
					traces := map[string]*Trace{}
					ref := Reference(sc)
					for i, seed := range Seeds(fam.Name, seeds) {
						rt, err := Run(t, sc, ref, seed)
						if err != nil {
							t.Fatal(err)
						}
						rf := Measure(rt)
						for _, spec := range specs {
							tr := rt
							if spec.Name != ref.Name {
								if tr, err = Run(t, sc, spec, seed); err != nil {
									t.Fatal(err)
								}
							}
							f := Measure(tr)
							res[spec.Name] = append(res[spec.Name],
								&Result{Scenario: sc, Limiter: spec.Name, Seed: seed, Figures: f, Checks: Judge(sc, f, rf)})
							if i == 0 && slices.Contains(charts, sc.Key()) {
								traces[spec.Name] = tr
							}
						}
					}
					mu.Lock()
					defer mu.Unlock()
					byScenario[sc.Key()] = res
					if len(traces) > 0 {
						r.Traces[sc.Key()] = traces
					}
				})
			}
		}
	})
	for _, fam := range fams {
		for _, sc := range fam.Scenarios {
			for _, spec := range specs {
				r.Results[spec.Name] = append(r.Results[spec.Name], byScenario[sc.Key()][spec.Name]...)
			}
		}
	}
	return r
}

// checkLetters abbreviate the checks in the report's grids.
var checkLetters = map[string]string{"goodput": "g", "p99": "p", "settle": "s", "collapse": "c", "shed": "r"}

// Markdown returns the report's tables and chart links (charts under
// imgPath, relative to the page).
func (r *Report) Markdown(imgPath string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d scenarios, %d seed(s) each (the holdout family on seeds from %d); a run passes when it clears every line of the bar.\n\n",
		len(r.scenarios()), r.Seeds, HoldoutSeedBase+1)

	b.WriteString("### Runs that clear the bar\n\n| limiter |")
	for _, f := range r.Families {
		b.WriteString(" " + f.Name + " |")
	}
	b.WriteString(" all |\n|---|" + strings.Repeat("---:|", len(r.Families)+1) + "\n")
	for _, spec := range r.Specs {
		fmt.Fprintf(&b, "| %s |", spec.Name)
		var runs, passed int
		for _, fs := range Score(r.Results[spec.Name]) {
			runs += fs.Runs
			passed += fs.Passed
			fmt.Fprintf(&b, " %s |", passCell(fs.Passed, fs.Runs))
		}
		fmt.Fprintf(&b, " %s |\n", passCell(passed, runs))
	}

	b.WriteString("\n### Worst figure per family\n\nFor each limiter and family, the worst run of each check (✗: it misses the bar), with its scenario and seed.\n")
	for _, spec := range r.Specs {
		fmt.Fprintf(&b, "\n<details><summary>%s</summary>\n\n", spec.Name)
		b.WriteString("| family | passed | goodput/bar | p99/ref | settle | worst 10s | shed |\n|---|---:|---:|---:|---:|---:|---:|\n")
		for _, fs := range Score(r.Results[spec.Name]) {
			fmt.Fprintf(&b, "| %s | %d/%d |", fs.Family, fs.Passed, fs.Runs)
			for _, name := range checkNames {
				fmt.Fprintf(&b, " %s |", fs.worstCell(name))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n</details>\n")
	}

	for _, fam := range r.Families {
		fmt.Fprintf(&b, "\n### %s\n\n%s. Each cell: the seeds that clear the bar, and the checks that fail on some seed "+
			"(g goodput, p p99, s settle, c collapse, r shed).\n\n| scenario |", fam.Name, fam.Title)
		for _, spec := range r.Specs {
			b.WriteString(" " + spec.Name + " |")
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(r.Specs)) + "\n")
		for _, sc := range fam.Scenarios {
			fmt.Fprintf(&b, "| %s |", sc.Name)
			for _, spec := range r.Specs {
				fmt.Fprintf(&b, " %s |", gridCell(r.runs(spec.Name, sc)))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\n<details><summary>%s: figures of every limiter</summary>\n\n", fam.Name)
		b.WriteString("Worst over the seeds: the lowest goodput and worst 10 s, the highest p99 and rejected share and the " +
			"slowest settle (first entry / holding, per change); limit/C is the mean.\n\n")
		b.WriteString("| scenario | limiter | goodput | p99 (×base) | p99/ref | limit/C | settle | worst 10s | rejected | bar |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, sc := range fam.Scenarios {
			for i, spec := range r.Specs {
				name := ""
				if i == 0 {
					name = fmt.Sprintf("%s<br>%s", sc.Name, sc.Title)
				}
				b.WriteString(detailRow(name, spec.Name, r.runs(spec.Name, sc)))
			}
		}
		b.WriteString("\n</details>\n")
	}

	if len(r.Traces) > 0 {
		b.WriteString("\n### Charts\n\nSeed 1. Limit against the true capacity C(t) (dashed; the limit axis is cut at 4× the largest C), " +
			"admitted p99 of the calls answered or timed out in each second, and goodput per second.\n")
		for _, key := range r.chartKeys() {
			fmt.Fprintf(&b, "\n**%s**: %s\n\n![%s](%s/%s)\n", key, r.Traces[key][r.Specs[0].Name].Scenario.Title,
				key, imgPath, chartFile(key))
		}
	}
	return b.String()
}

func passCell(passed, runs int) string {
	if passed == runs {
		return fmt.Sprintf("**%d/%d**", passed, runs)
	}
	return fmt.Sprintf("%d/%d", passed, runs)
}

func (r *Report) scenarios() []*Scenario {
	var out []*Scenario
	for _, f := range r.Families {
		out = append(out, f.Scenarios...)
	}
	return out
}

// runs returns the results of limiter name on sc, one per seed.
func (r *Report) runs(name string, sc *Scenario) []*Result {
	var out []*Result
	for _, res := range r.Results[name] {
		if res.Scenario == sc {
			out = append(out, res)
		}
	}
	return out
}

func (r *Report) chartKeys() []string {
	var keys []string
	for _, sc := range r.scenarios() {
		if _, ok := r.Traces[sc.Key()]; ok {
			keys = append(keys, sc.Key())
		}
	}
	return keys
}

func gridCell(runs []*Result) string {
	passed := 0
	var letters []string
	for _, res := range runs {
		if res.Pass() {
			passed++
		}
		for _, c := range res.Checks {
			if l := checkLetters[c.Name]; !c.OK && !slices.Contains(letters, l) {
				letters = append(letters, l)
			}
		}
	}
	if passed == len(runs) {
		return fmt.Sprintf("✓ %d/%d", passed, len(runs))
	}
	return fmt.Sprintf("✗ %d/%d %s", passed, len(runs), strings.Join(letters, ""))
}

// detailRow is one limiter's figures on one scenario, worst over seeds.
func detailRow(scenario, limiter string, runs []*Result) string {
	good, worst10 := math.Inf(1), math.Inf(1)
	p99, ratio, rejected, limit := 0.0, 0.0, 0.0, 0.0
	var first, hold []time.Duration
	passed := 0
	for _, res := range runs {
		f := res.Figures
		good = math.Min(good, f.Goodput)
		p99 = math.Max(p99, f.P99)
		rejected = math.Max(rejected, f.Rejected)
		limit += f.LimitMean / float64(len(runs))
		for _, c := range res.Checks {
			switch c.Name {
			case "p99":
				ratio = math.Max(ratio, c.Value)
			case "collapse":
				worst10 = math.Min(worst10, c.Value)
			}
		}
		for i, st := range f.Settle {
			if i == len(first) {
				first, hold = append(first, st.First), append(hold, st.Hold)
			}
			first[i], hold[i] = slowest(first[i], st.First), slowest(hold[i], st.Hold)
		}
		if res.Pass() {
			passed++
		}
	}
	var settles []string
	for i := range first {
		settles = append(settles, fmtSettle(first[i])+" / "+fmtSettle(hold[i]))
	}
	settle := "-"
	if len(settles) > 0 {
		settle = strings.Join(settles, "<br>")
	}
	bar := fmt.Sprintf("✓ %d/%d", passed, len(runs))
	if passed < len(runs) {
		bar = fmt.Sprintf("✗ %d/%d", passed, len(runs))
	}
	return fmt.Sprintf("| %s | %s | %.3f | %.2f | %.2f | %.2f | %s | %.3f | %.1f%% | %s |\n",
		scenario, limiter, good, p99, ratio, limit, settle, worst10, 100*rejected, bar)
}

// slowest returns the slower of two settle times, never (-1) being the
// slowest.
func slowest(a, b time.Duration) time.Duration {
	if a < 0 || b < 0 {
		return -1
	}
	return max(a, b)
}

// chartFile is the file name of a scenario's chart.
func chartFile(key string) string {
	return "sim-" + strings.NewReplacer("/", "-", "=", "", ".", "_").Replace(key) + ".svg"
}

var palette = []color.Color{
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // the first (Little): red
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
}

// series is a trace reduced to one point per second.
type series struct{ limit, p99, goodput plotter.XYs }

func chartSeries(tr *Trace) series {
	secs := int(tr.Scenario.Duration() / time.Second)
	var s series
	lim := make([]float64, secs)
	cnt := make([]float64, secs)
	for _, smp := range tr.Samples {
		i := int(smp.At / time.Second)
		lim[i] += float64(smp.Limit)
		cnt[i]++
	}
	lats := make([][]float64, secs)
	for _, c := range tr.Calls {
		if i := int((c.Admitted + c.Latency) / time.Second); i < secs {
			lats[i] = append(lats[i], float64(c.Units))
		}
	}
	good, servable := perSecond(tr)
	for i := range secs {
		x := float64(i) + 0.5
		if cnt[i] > 0 {
			s.limit = append(s.limit, plotter.XY{X: x, Y: lim[i] / cnt[i]})
		}
		if len(lats[i]) > 0 {
			slices.Sort(lats[i])
			s.p99 = append(s.p99, plotter.XY{X: x, Y: percentile(lats[i], 0.99)})
		}
		if servable[i] > 0 {
			s.goodput = append(s.goodput, plotter.XY{X: x, Y: good[i] / servable[i]})
		}
	}
	return s
}

// WriteCharts draws, for each charted scenario, the limit against C(t),
// the p99 and the goodput over time of the chart limiters, into
// dir/chartFile(key).
func (r *Report) WriteCharts(dir string) error {
	for _, key := range r.chartKeys() {
		if err := r.chart(key, filepath.Join(dir, chartFile(key))); err != nil {
			return err
		}
	}
	return nil
}

// chart draws the chart of key into path, an SVG or (by its extension) a
// PNG.
func (r *Report) chart(key, path string) error {
	traces := r.Traces[key]
	var sc *Scenario
	for _, tr := range traces {
		sc = tr.Scenario
	}
	titles := []string{"limit (calls)", "admitted p99 (× base)", "goodput (× what could be served)"}
	plots := make([][]*plot.Plot, len(titles))
	for i, t := range titles {
		p := plot.New()
		p.Y.Label.Text = t
		p.X.Label.Text = "time (s)"
		p.X.Min, p.X.Max = 0, sc.Duration().Seconds()
		p.Legend.Top = true
		p.Legend.Left = true
		plots[i] = []*plot.Plot{p}
	}
	top := 0
	var capXY plotter.XYs
	for at := time.Duration(0); at < sc.Duration(); at += SampleEvery {
		c, _ := sc.conditions(at)
		top = max(top, c)
		capXY = append(capXY, plotter.XY{X: at.Seconds(), Y: float64(c)})
	}
	plots[0][0].Title.Text = key + ": " + sc.Title
	plots[0][0].Y.Min, plots[0][0].Y.Max = 0, 4*float64(top)
	plots[1][0].Y.Min, plots[1][0].Y.Max = 0, 1.05*float64(sc.Timeout)/float64(sc.Base)
	plots[2][0].Y.Min, plots[2][0].Y.Max = 0, 1.3
	ci := 0
	for _, name := range chartSpecs {
		tr, ok := traces[name]
		if !ok {
			continue
		}
		s := chartSeries(tr)
		col := palette[ci%len(palette)]
		ci++
		for i, xy := range []plotter.XYs{s.limit, s.p99, s.goodput} {
			if len(xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return err
			}
			l.Color = col
			l.Width = vg.Points(1)
			if name == chartSpecs[0] {
				l.Width = vg.Points(2)
			}
			plots[i][0].Add(l)
			if i == 0 {
				plots[i][0].Legend.Add(name, l)
			}
		}
	}
	cl, err := plotter.NewLine(capXY)
	if err != nil {
		return err
	}
	cl.Color = color.Black
	cl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	plots[0][0].Add(cl)
	plots[0][0].Legend.Add("capacity C", cl)

	const w, h = 9 * vg.Inch, 10 * vg.Inch
	tiles := draw.Tiles{Rows: len(titles), Cols: 1, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	var c vg.CanvasWriterTo = vgsvg.New(w, h)
	if filepath.Ext(path) == ".png" {
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(80))}
	}
	canvases := plot.Align(plots, tiles, draw.New(c))
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// The markers between which WriteDoc replaces a page's generated part.
const (
	reportBegin = "<!-- report:begin -->\n"
	reportEnd   = "<!-- report:end -->"
)

// WriteDoc replaces the text between the report markers of the page at
// path with r's tables, linking charts under imgPath.
func (r *Report) WriteDoc(path, imgPath string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(old)
	i, j := strings.Index(s, reportBegin), strings.Index(s, reportEnd)
	if i < 0 || j < i {
		return fmt.Errorf("sim: %s has no %q ... %q markers", path, strings.TrimSpace(reportBegin), reportEnd)
	}
	s = s[:i+len(reportBegin)] + r.Markdown(imgPath) + s[j:]
	return os.WriteFile(path, []byte(s), 0o644)
}
