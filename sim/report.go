package sim

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Result is one limiter's run of one scenario, measured.
type Result struct {
	Spec   Spec
	Trace  *Trace
	All    Figures   // over every phase's steady part
	Phases []Figures // per phase
}

// NewResult measures tr.
func NewResult(spec Spec, tr *Trace) *Result {
	r := &Result{Spec: spec, Trace: tr, All: Measure(tr)}
	for i := range tr.Scenario.Phases {
		r.Phases = append(r.Phases, MeasurePhase(tr, i))
	}
	return r
}

// The bar Little was designed to clear (issue 6).
const (
	BarGoodput  = 0.97             // under 2x and 5x overload
	BarP99      = 3.2              // admitted p99 / base service time, under 2x and 5x
	BarDrop     = 15 * time.Second // within 25% of the new capacity after 40 -> 10
	BarRecovery = 20 * time.Second // and after 10 -> 40
)

func fmtSettle(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func mark(ok bool, s string) string {
	if ok {
		return s
	}
	return "**" + s + "** ✗"
}

// Scoreboard is the markdown table of the bar: one row per limiter, with
// figures that miss the bar in bold. results maps scenario name to the
// results in Specs order.
func Scoreboard(results map[string][]*Result) string {
	var b strings.Builder
	b.WriteString("| limiter | 2x goodput | 2x p99 | 5x goodput | 5x p99 | 40→10 within 25% | 10→40 within 25% | underload rejected | latency shift: goodput, limit/C |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i, r2 := range results["overload2x"] {
		r5 := results["overload5x"][i]
		cd := results["capdrop"][i]
		ul := results["underload"][i]
		ls := results["latshift"][i]
		shift := ls.Phases[1]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r2.Spec.Name,
			mark(r2.All.Goodput >= BarGoodput, fmt.Sprintf("%.3f", r2.All.Goodput)),
			mark(r2.All.P99 <= BarP99, fmt.Sprintf("%.2f", r2.All.P99)),
			mark(r5.All.Goodput >= BarGoodput, fmt.Sprintf("%.3f", r5.All.Goodput)),
			mark(r5.All.P99 <= BarP99, fmt.Sprintf("%.2f", r5.All.P99)),
			mark(cd.All.Settle[1] >= 0 && cd.All.Settle[1] <= BarDrop, fmtSettle(cd.All.Settle[1])),
			mark(cd.All.Settle[2] >= 0 && cd.All.Settle[2] <= BarRecovery, fmtSettle(cd.All.Settle[2])),
			mark(ul.All.Rejected <= 0.001, fmt.Sprintf("%.2f%%", 100*ul.All.Rejected)),
			mark(shift.Goodput >= 0.9 && shift.LimitMean >= 0.75, fmt.Sprintf("%.3f, %.2f", shift.Goodput, shift.LimitMean)))
	}
	return b.String()
}

// Table is the markdown table of one scenario.
func Table(sc Scenario, results []*Result) string {
	var b strings.Builder
	multi := len(sc.Phases) > 1 && len(sc.Phases) <= 3
	var settles []string
	var start time.Duration
	for _, p := range sc.Phases {
		if p.Settle {
			settles = append(settles, fmt.Sprintf("settle @%ds", int(start.Seconds())))
		}
		start += p.Duration
	}
	head := []string{"limiter", "goodput", "rejected", "timed out", "p50", "p99", "limit/C"}
	if multi {
		head = []string{"limiter", "goodput (per phase)", "rejected", "timed out", "p50", "p99 (per phase)", "limit/C (per phase)"}
	}
	head = append(head, settles...)
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|---|")
	b.WriteString(strings.Repeat("---:|", len(head)-1) + "\n")
	for _, r := range results {
		f := r.All
		good, p99, lim := fmt.Sprintf("%.3f", f.Goodput), fmt.Sprintf("%.2f", f.P99), fmt.Sprintf("%.2f", f.LimitMean)
		if multi {
			var g, p, l []string
			for _, pf := range r.Phases {
				g = append(g, fmt.Sprintf("%.3f", pf.Goodput))
				p = append(p, fmt.Sprintf("%.2f", pf.P99))
				l = append(l, fmt.Sprintf("%.2f", pf.LimitMean))
			}
			good, p99, lim = strings.Join(g, " / "), strings.Join(p, " / "), strings.Join(l, " / ")
		}
		row := []string{r.Spec.Name, good, fmt.Sprintf("%.1f%%", 100*f.Rejected), fmt.Sprintf("%.2f%%", 100*f.TimedOut),
			fmt.Sprintf("%.2f", f.P50), p99, lim}
		for _, s := range f.Settle {
			row = append(row, fmtSettle(s))
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	return b.String()
}

// chartSpecs are the limiters drawn in the charts (all of them would not be
// legible).
var chartSpecs = []string{LittleName, "r4c-gradient2", "r4c-aimd", "r4c-vegas", "failsafe-go", "gcl-gradient2", "bulkhead-40"}

// series is a trace reduced to one point per second.
type series struct {
	limit, inflight, p99, goodput plotter.XYs
}

func perSecond(tr *Trace) series {
	secs := int(tr.Scenario.Duration() / time.Second)
	var s series
	lim := make([]float64, secs)
	in := make([]float64, secs)
	cnt := make([]float64, secs)
	for _, smp := range tr.Samples {
		i := int(smp.At / time.Second)
		if i < secs {
			lim[i] += float64(smp.Limit)
			in[i] += float64(smp.InFlight)
			cnt[i]++
		}
	}
	lats := make([][]float64, secs)
	good := make([]float64, secs)
	for _, c := range tr.Calls {
		end := c.Admitted + c.Latency
		if i := int(end / time.Second); i < secs {
			lats[i] = append(lats[i], c.Latency.Seconds()/(BaseService.Seconds()*c.Scale))
			if c.OK {
				good[i]++
			}
		}
	}
	for i := 0; i < secs; i++ {
		x := float64(i) + 0.5
		if cnt[i] > 0 {
			s.limit = append(s.limit, plotter.XY{X: x, Y: lim[i] / cnt[i]})
			s.inflight = append(s.inflight, plotter.XY{X: x, Y: in[i] / cnt[i]})
		}
		if len(lats[i]) > 0 {
			slices.Sort(lats[i])
			s.p99 = append(s.p99, plotter.XY{X: x, Y: percentile(lats[i], 0.99)})
		}
		p, _ := tr.Scenario.phaseAt(time.Duration(i) * time.Second)
		ph := tr.Scenario.Phases[p]
		capacity := float64(ph.Workers) / (BaseService.Seconds() * ph.Scale)
		s.goodput = append(s.goodput, plotter.XY{X: x, Y: good[i] / capacity})
	}
	return s
}

var palette = []color.Color{
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // candidate: red
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
}

// Chart draws limit, in flight, p99 latency and goodput over time for the
// chart limiters of one scenario, and writes <dir>/<scenario>.png and .svg.
func Chart(sc Scenario, results []*Result, dir string) error {
	titles := []string{"limit (calls)", "in flight (calls)", "p99 latency (x base service time)", "goodput (x capacity)"}
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
	plots[0][0].Title.Text = sc.Title
	plots[2][0].Y.Min, plots[2][0].Y.Max = 0, 10
	plots[3][0].Y.Min, plots[3][0].Y.Max = 0, 1.2
	ci := 0
	for _, name := range chartSpecs {
		var r *Result
		for _, x := range results {
			if x.Spec.Name == name {
				r = x
			}
		}
		if r == nil {
			continue
		}
		s := perSecond(r.Trace)
		col := palette[ci%len(palette)]
		ci++
		for i, xy := range []plotter.XYs{s.limit, s.inflight, s.p99, s.goodput} {
			l, err := plotter.NewLine(xy)
			if err != nil {
				return err
			}
			l.Color = col
			l.Width = vg.Points(1)
			if name == LittleName {
				l.Width = vg.Points(2)
			}
			plots[i][0].Add(l)
			if i == 0 {
				plots[i][0].Legend.Add(name, l)
			}
		}
	}
	// Capacity line on the limit panel.
	var capXY plotter.XYs
	var start time.Duration
	for _, p := range sc.Phases {
		capXY = append(capXY, plotter.XY{X: start.Seconds(), Y: float64(p.Workers)},
			plotter.XY{X: (start + p.Duration).Seconds(), Y: float64(p.Workers)})
		start += p.Duration
	}
	cl, err := plotter.NewLine(capXY)
	if err != nil {
		return err
	}
	cl.Color = color.Black
	cl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	plots[0][0].Add(cl)
	plots[0][0].Legend.Add("capacity C", cl)
	lim := plots[0][0]
	lim.Y.Min = 0
	lim.Y.Max = math.Max(lim.Y.Max, 0)

	const w, h = 9 * vg.Inch, 12 * vg.Inch
	tiles := draw.Tiles{Rows: len(titles), Cols: 1, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	write := func(c vg.CanvasWriterTo, ext string) error {
		canvases := plot.Align(plots, tiles, draw.New(c))
		for i := range plots {
			plots[i][0].Draw(canvases[i][0])
		}
		f, err := os.Create(filepath.Join(dir, sc.Name+"."+ext))
		if err != nil {
			return err
		}
		if _, err := c.WriteTo(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if err := write(vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(80))}, "png"); err != nil {
		return err
	}
	return write(vgsvg.New(w, h), "svg")
}
