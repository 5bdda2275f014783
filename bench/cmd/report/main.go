// Command report runs the peer benchmarks of the bench module and renders
// docs/performance.md from their results: the machine, SPEC.md's budgets
// with a verdict each, a summary table per benchmark group (medians, ratio
// to the floor and to r4c), and benchstat's own tables.
//
// Run it from the bench directory (bench/run.sh does):
//
//	go run ./cmd/report                        # run everything, write the doc
//	go run ./cmd/report -count 3 -benchtime 100ms
//	go run ./cmd/report -in results/bench.txt  # render again from saved results
//
// The benchmarks are compiled once and run -count times over the whole set
// (rounds), rather than -count times each in a row, so that a busy spell on
// a shared machine lands on every library alike. Raw results go to
// results/bench.txt (Go benchmark format, readable by benchstat) and the run's
// metadata to results/bench.json. benchstat is the tool dependency of the
// bench module (go tool benchstat), so a fresh machine needs only the Go
// module proxy.
//
// The reading section of the document (between the markers
// "<!-- BEGIN reading -->" and "<!-- END reading -->") is written by hand and
// kept when the document is rendered again.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// meta describes a run; it is saved next to the results.
type meta struct {
	Date        string            `json:"date"`
	CPUModel    string            `json:"cpuModel"` // /proc/cpuinfo "model name"
	CPUBrand    string            `json:"cpuBrand"` // the "cpu:" line go test prints
	CPUs        int               `json:"cpus"`
	GoVersion   string            `json:"goVersion"`
	GOOS        string            `json:"goos"`
	GOARCH      string            `json:"goarch"`
	Kernel      string            `json:"kernel"`
	LoadBefore  string            `json:"loadBefore"`
	LoadAfter   string            `json:"loadAfter"`
	Rounds      int               `json:"rounds"`
	Benchtime   string            `json:"benchtime"`
	CPUList     string            `json:"cpuList"`
	Bench       string            `json:"bench"`
	Duration    string            `json:"duration"`
	Modules     map[string]string `json:"modules"`
	CommandLine string            `json:"commandLine"`
}

func main() {
	var (
		benchtime = flag.String("benchtime", "300ms", "go test -benchtime for each benchmark")
		count     = flag.Int("count", 6, "rounds: how many times the whole set runs (6 or more gives benchstat 95% confidence intervals)")
		cpu       = flag.String("cpu", "1,2", "go test -cpu list")
		bench     = flag.String("bench", ".", "go test -bench regexp")
		in        = flag.String("in", "", "render from this results file instead of running (its .json metadata beside it, if any)")
		results   = flag.String("results", "results/bench.txt", "where to write the raw results")
		out       = flag.String("out", "../docs/performance.md", "the document to write")
	)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./cmd/report [flags]  (from the bench directory)\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := checkDir(); err != nil {
		fatal(err)
	}
	var m meta
	resultsFile := *in
	if resultsFile == "" {
		var err error
		m, err = run(*benchtime, *count, *cpu, *bench, *results)
		if err != nil {
			fatal(err)
		}
		resultsFile = *results
	} else if b, err := os.ReadFile(metaPath(resultsFile)); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			fatal(fmt.Errorf("%s: %w", metaPath(resultsFile), err))
		}
	}
	d, err := load(resultsFile)
	if err != nil {
		fatal(err)
	}
	if m.CPUBrand == "" {
		m.CPUBrand = d.cpu
	}
	tables, err := benchstatTables(resultsFile)
	if err != nil {
		fatal(err)
	}
	old, _ := os.ReadFile(*out)
	doc := render(d, m, tables, filepath.ToSlash(resultsFile), keptReading(old))
	if err := os.WriteFile(*out, []byte(doc), 0o644); err != nil {
		fatal(err)
	}
	fmt.Fprintf(os.Stderr, "report: wrote %s\n", *out)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}

// checkDir makes sure the command runs in the bench module's directory.
func checkDir() error {
	b, err := os.ReadFile("go.mod")
	if err == nil && bytes.Contains(b, []byte("module github.com/resilience4cata/r4c/bench\n")) {
		return nil
	}
	return errors.New("run me from the bench directory of the r4c repository (bench/run.sh does)")
}

func metaPath(results string) string {
	return strings.TrimSuffix(results, filepath.Ext(results)) + ".json"
}

// run compiles the benchmarks, runs them in rounds into results, and returns
// the run's metadata (also written beside the results).
func run(benchtime string, rounds int, cpu, bench, results string) (meta, error) {
	if rounds < 1 {
		return meta{}, errors.New("-count must be at least 1")
	}
	m := meta{
		Date:      time.Now().UTC().Format("2006-01-02 15:04 MST"),
		CPUModel:  cpuModel(),
		CPUs:      runtime.NumCPU(),
		GOOS:      runtime.GOOS,
		GOARCH:    runtime.GOARCH,
		Kernel:    strings.TrimSpace(readFile("/proc/sys/kernel/osrelease")),
		Rounds:    rounds,
		Benchtime: benchtime,
		CPUList:   cpu,
		Bench:     bench,
		Modules:   map[string]string{},
		CommandLine: fmt.Sprintf("go run ./cmd/report -count %d -benchtime %s -cpu %s -bench '%s'",
			rounds, benchtime, cpu, bench),
	}
	v, err := output("go", "env", "GOVERSION")
	if err != nil {
		return m, err
	}
	m.GoVersion = strings.TrimSpace(v)
	mods, err := output("go", "list", "-m", "-f", "{{.Path}} {{.Version}}",
		"github.com/failsafe-go/failsafe-go", "github.com/platinummonkey/go-concurrency-limits",
		"github.com/sony/gobreaker/v2", "golang.org/x/time", "golang.org/x/perf")
	if err != nil {
		return m, err
	}
	for _, line := range strings.Split(strings.TrimSpace(mods), "\n") {
		if path, ver, ok := strings.Cut(line, " "); ok {
			m.Modules[path] = ver
		}
	}

	tmp, err := os.MkdirTemp("", "r4c-bench-")
	if err != nil {
		return m, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bench.test")
	fmt.Fprintln(os.Stderr, "report: compiling the benchmarks")
	if out, err := exec.Command("go", "test", "-c", "-o", bin, ".").CombinedOutput(); err != nil {
		return m, fmt.Errorf("go test -c: %v\n%s", err, out)
	}

	if err := os.MkdirAll(filepath.Dir(results), 0o755); err != nil {
		return m, err
	}
	partial := results + ".tmp"
	f, err := os.Create(partial)
	if err != nil {
		return m, err
	}
	defer f.Close()
	start := time.Now()
	m.LoadBefore = loadAvg()
	for r := 1; r <= rounds; r++ {
		fmt.Fprintf(os.Stderr, "report: round %d of %d\n", r, rounds)
		cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", bench, "-test.benchmem",
			"-test.benchtime", benchtime, "-test.count", "1", "-test.cpu", cpu, "-test.timeout", "60m")
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return m, err
		}
		if err := cmd.Start(); err != nil {
			return m, err
		}
		failed := false
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(f, line)
			switch {
			case strings.HasPrefix(line, "cpu: "):
				m.CPUBrand = strings.TrimSpace(strings.TrimPrefix(line, "cpu: "))
			case strings.HasPrefix(line, "Benchmark"):
				fmt.Fprintf(os.Stderr, "  %s\n", strings.Join(strings.Fields(line)[:min(3, len(strings.Fields(line)))], " "))
			case strings.HasPrefix(line, "--- FAIL") || strings.HasPrefix(line, "FAIL"):
				failed = true
				fmt.Fprintln(os.Stderr, line)
			case strings.HasPrefix(line, "    "): // a benchmark's log
				fmt.Fprintln(os.Stderr, line)
			}
		}
		if err := cmd.Wait(); err != nil || failed {
			return m, fmt.Errorf("round %d: the benchmarks failed (%v); partial results in %s", r, err, partial)
		}
	}
	m.LoadAfter = loadAvg()
	m.Duration = time.Since(start).Round(time.Second).String()
	if err := f.Close(); err != nil {
		return m, err
	}
	if err := os.Rename(partial, results); err != nil {
		return m, err
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(metaPath(results), append(b, '\n'), 0o644); err != nil {
		return m, err
	}
	return m, nil
}

func output(name string, args ...string) (string, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "".
func cpuModel() string {
	for _, line := range strings.Split(readFile("/proc/cpuinfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// loadAvg returns the 1-, 5- and 15-minute load averages, or "".
func loadAvg() string {
	f := strings.Fields(readFile("/proc/loadavg"))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// keptReading returns the hand-written reading of an earlier document, or "".
func keptReading(doc []byte) string {
	_, rest, ok := bytes.Cut(doc, []byte(beginReading))
	if !ok {
		return ""
	}
	body, _, ok := bytes.Cut(rest, []byte(endReading))
	if !ok {
		return ""
	}
	return strings.Trim(string(body), "\n")
}

const (
	beginReading = "<!-- BEGIN reading -->"
	endReading   = "<!-- END reading -->"
)

// benchstatTables runs benchstat over the results once per section and
// returns its text output by section name.
func benchstatTables(results string) (map[string]string, error) {
	tables := map[string]string{}
	for _, s := range sections() {
		names := s.benchmarks
		if len(names) == 0 {
			names = []string{s.name}
		}
		filter := fmt.Sprintf("(%s) .unit:(sec/op OR cpu-sec/op OR allocs/op)", nameFilter(names))
		var stdout, stderr bytes.Buffer
		cmd := exec.Command("go", "tool", "benchstat", "-filter", filter, results)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go tool benchstat: %v\n%s", err, stderr.String())
		}
		tables[s.name] = trimBenchstat(stdout.String())
	}
	return tables, nil
}

func nameFilter(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = ".name:" + n
	}
	return strings.Join(parts, " OR ")
}

// trimBenchstat drops the configuration lines (goos, cpu, ...) benchstat
// prints before each table: the document states them once.
func trimBenchstat(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if k, _, ok := strings.Cut(line, ": "); ok && !strings.ContainsAny(k, " │") {
			continue
		}
		out = append(out, strings.TrimRight(line, " "))
	}
	return strings.Trim(strings.Join(out, "\n"), "\n")
}
