package sim

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

var flagReport = flag.Bool("sim.report", false, "TestReport runs every limiter over the whole matrix and rewrites docs/adaptation.md and docs/img/sim-*.svg")

// TestReport writes the report. With -sim.report it runs every limiter
// (Specs) over the whole matrix, -sim.seeds seeds each (default 3), and
// rewrites the tables of docs/adaptation.md and its charts:
//
//	go test ./sim -run TestReport -sim.report -timeout 30m
//
// Without it, it writes a small report (two scenarios, three limiters, one
// seed) into a temporary directory and checks what it wrote.
func TestReport(t *testing.T) {
	if *flagReport {
		start := time.Now()
		r := RunReport(t, Specs(), Families(), seedCount(), ChartScenarios)
		docs := filepath.Join("..", "docs")
		if err := os.MkdirAll(filepath.Join(docs, "img"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteCharts(filepath.Join(docs, "img")); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteDoc(filepath.Join(docs, "adaptation.md"), "img"); err != nil {
			t.Fatal(err)
		}
		t.Logf("report written in %v", time.Since(start).Round(time.Second))
		return
	}
	t.Parallel()
	fams := []Family{
		{Name: "capacity", Title: "t", Scenarios: []*Scenario{scenario(t, "capacity/C=4")}},
		{Name: "dynamics", Title: "t", Scenarios: []*Scenario{scenario(t, "dynamics/step-down")}},
	}
	specs := []Spec{Algorithm(adaptivelimit.Little), Failsafe(), Oracle()}
	r := RunReport(t, specs, fams, 1, []string{"dynamics/step-down"})
	dir := t.TempDir()
	page := filepath.Join(dir, "page.md")
	if err := os.WriteFile(page, []byte("# title\n\n"+reportBegin+"old\n"+reportEnd+"\n\nend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteCharts(dir); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteDoc(page, "img"); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	md := string(out)
	for _, want := range []string{
		"# title\n\n" + reportBegin, reportEnd + "\n\nend\n",
		"| limiter | capacity | dynamics | all |",
		"| oracle | **1/1** | **1/1** | **2/2** |", // the reference clears its own bar
		"### capacity", "| C=4 |", "### dynamics", "| step-down |",
		"| step-down<br>C 40 → 10 at 30 s", "| failsafe-go |",
		"![dynamics/step-down](img/sim-dynamics-step-down.svg)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the page lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "old\n") {
		t.Error("the old generated part is still there")
	}
	svg, err := os.ReadFile(filepath.Join(dir, "sim-dynamics-step-down.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "r4c-little", "failsafe-go", "capacity C"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	png := filepath.Join(dir, "chart.png")
	if err := r.chart("dynamics/step-down", png); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("the PNG chart: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sim-capacity-C4.svg")); !os.IsNotExist(err) {
		t.Errorf("a chart was drawn for a scenario not asked for: %v", err)
	}
	if err := r.WriteDoc(filepath.Join(dir, "missing.md"), "img"); err == nil {
		t.Error("WriteDoc wrote to a page that does not exist")
	}
	if err := os.WriteFile(page, []byte("no markers"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteDoc(page, "img"); err == nil || !strings.Contains(err.Error(), "markers") {
		t.Errorf("WriteDoc on a page without markers: %v", err)
	}
}
