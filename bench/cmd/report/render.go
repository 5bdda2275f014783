package main

import (
	"fmt"
	"slices"
	"strings"
)

// section is one part of the results: a benchmark group (the same work done
// by several libraries) or the reference points.
type section struct {
	name       string
	title      string
	benchmarks []string // the benchmarks shown; none for a group, whose name is its benchmark
	floor      string   // the benchmark its ratios to the floor use
	refs       []string // r4c variants every row is compared with
	about      string
}

func sections() []section {
	return []section{
		{
			name: "reference", title: "Reference points",
			benchmarks: []string{"Baseline", "Floor", "FloorParallel", "DeadlineContext"}, floor: "Floor",
			about: "`Baseline` calls the work directly. `Floor` is the least an admitted adaptive-limit call can " +
				"cost: a CAS that takes a slot under a limit, a monotonic clock reading (`time.Since` of a fixed " +
				"instant), the work, a second reading and an atomic add that frees the slot. `FloorParallel` is the " +
				"same on every P with one shared slot counter (the floor of the parallel benchmarks). " +
				"`DeadlineContext` is `context.WithTimeout` plus its cancel: what SPEC.md lets a timeout stage add.",
		},
		{
			name: "AdaptiveLimitAdmitted", title: "Adaptive limit, admitted", floor: "Floor",
			refs: []string{"r4c-core", "r4c-pipeline"},
			about: "One goroutine; the limit (initial 20, bounds 4 to 200) is never full. `r4c-core`: " +
				"`Limiter.TryAcquire`, the work, `Release(p, Classify(ctx, err))`. `r4c-pipeline`: a pipeline with " +
				"the adaptive limit alone, `Execute`. `failsafe-direct`: `adaptivelimiter` `TryAcquirePermit` then " +
				"`Record`; `failsafe-executor`: `failsafe.With(limiter).Get`. `gcl-gradient2` / `gcl-aimd`: " +
				"go-concurrency-limits' `DefaultLimiter.Acquire` then `OnSuccess`, over its Gradient2 / AIMD limit, " +
				"with a 1 s window of at least 10 samples and its 100 µs sample threshold set to 0, so that every " +
				"call is a sample as in r4c.",
		},
		{
			name: "AdaptiveLimitParallel", title: "Adaptive limit, admitted, parallel", floor: "FloorParallel",
			refs:  []string{"r4c-core", "r4c-pipeline"},
			about: "The same calls from every P (`b.RunParallel`) through one shared limiter.",
		},
		{
			name: "AdaptiveLimitRejected", title: "Adaptive limit, rejected", floor: "Floor",
			refs: []string{"r4c-core", "r4c-pipeline"},
			about: "A limit of one whose slot is held for the whole benchmark (for the r4c pipeline by an " +
				"`ExecuteFuture` whose future stays pending), so every call is rejected.",
		},
		{
			name: "BulkheadAdmitted", title: "Bulkhead, admitted", floor: "Floor",
			refs: []string{"r4c-core", "r4c-pipeline"},
			about: "A bulkhead of 100, never full. r4c: `TryAcquire`/`Release` and a one-policy pipeline; " +
				"failsafe-go: `TryAcquirePermit`/`ReleasePermit` and its executor.",
		},
		{
			name: "BulkheadRejected", title: "Bulkhead, rejected", floor: "Floor",
			refs:  []string{"r4c-core", "r4c-pipeline"},
			about: "A bulkhead of one whose slot is held: every call is rejected.",
		},
		{
			name: "RateLimitAllowed", title: "Rate limiter, allowed", floor: "Floor",
			refs: []string{"r4c-core", "r4c-pipeline"},
			about: "A rate far above what the benchmark reaches (10⁹ per second, burst 10⁹), so every call is " +
				"allowed. r4c: `Limiter.Allow` and a one-policy pipeline; `xrate`: `golang.org/x/time/rate` " +
				"`Limiter.Allow`; failsafe-go: its bursty limiter's `TryAcquirePermit` and its executor.",
		},
		{
			name: "RateLimitRejected", title: "Rate limiter, rejected", floor: "Floor",
			refs:  []string{"r4c-core", "r4c-pipeline"},
			about: "One permit an hour, already taken: every call is rejected.",
		},
		{
			name: "BreakerSuccess", title: "Circuit breaker, success", floor: "Floor",
			refs: []string{"r4c-core", "r4c-pipeline"},
			about: "A closed breaker, every call succeeds. r4c's breaker tracks slow calls (`SlowCallDuration` " +
				"1 s, threshold 50 %), so it reads the clock twice per call; gobreaker (`Execute`, default " +
				"settings) and failsafe-go's breaker (`TryAcquirePermit` + `RecordSuccess`, and its executor) have " +
				"no slow-call tracking.",
		},
		{
			name: "RetrySuccess", title: "Retry, first attempt succeeds", floor: "Floor",
			refs: []string{"r4c-core", "r4c-pipeline"},
			about: "Three attempts allowed, the first succeeds. `r4c-core` is `Retry.Do`; failsafe-go has no " +
				"standalone retry, only its executor.",
		},
		{
			name: "TimeoutSuccess", title: "Timeout, success", floor: "Floor",
			refs: []string{"r4c-pipeline", "r4c-pipeline-cooperative"},
			about: "A 1 s timeout around work that returns at once, called with a ctx (`ExecuteContext`). r4c's " +
				"default mode runs the work on a goroutine of its own, so the caller gets the error at the " +
				"deadline even when the work ignores its ctx; the cooperative mode runs it on the caller's " +
				"goroutine. `r4c-core` is `Timeout.Run` (default mode). failsafe-go's timeout blocks the caller " +
				"until the work returns.",
		},
		{
			name: "Pipeline", title: "Full synchronous pipeline", floor: "Floor",
			refs: []string{"r4c"},
			about: "r4c: rate limiter, adaptive limit, bulkhead, breaker with slow-call tracking and retry, in " +
				"the fixed order (retry, breaker, rate limiter, adaptive limit, bulkhead), `Execute`. " +
				"`failsafe-executor`: `failsafe.With(retry, breaker, ratelimiter, adaptivelimiter, bulkhead).Get`, " +
				"the same policies in the same order, with the same settings as above.",
		},
		{
			name: "PipelineTimeout", title: "Full pipeline with a timeout", floor: "Floor",
			refs: []string{"r4c", "r4c-cooperative"},
			about: "The full pipeline plus a 1 s timeout inside the adaptive limit (six policies), called with " +
				"a ctx; r4c in its default and its cooperative timeout mode.",
		},
		{
			name: "PipelineParallel", title: "Full pipeline, parallel", floor: "FloorParallel",
			refs:  []string{"r4c"},
			about: "The full pipeline from every P, through one shared pipeline.",
		},
	}
}

// render returns the whole document.
func render(d *data, m meta, tables map[string]string, results, reading string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	p("# Performance\n\n")
	p("<!-- Generated by bench/cmd/report (bench/run.sh) from %s; the reading between the BEGIN/END markers is\n", results)
	p("     written by hand and kept when the document is generated again. Do not edit the rest by hand. -->\n\n")
	p("What a call costs in r4c, next to the Go libraries that do the same work, measured by the benchmarks of\n")
	p("the `bench` module (a module of its own, so r4c never depends on its peers). Every call runs work that\n")
	p("returns at once, so the figures are each library's own overhead. Figures are medians of %s.\n\n", roundsText(m, d))
	if d.byCPU {
		p("**Which time.** The machine these figures come from is shared: when other processes take its cores,\n")
		p("a benchmark's wall-clock time per call (`ns/op`) grows with their load, not with the code. So the ratios\n")
		p("and the budget verdicts below use the CPU time the benchmark process spent per call (`cpu-ns/op`:\n")
		p("user plus system time of all its threads, from getrusage, divided by the calls), which does not grow\n")
		p("with other processes' load; the wall-clock figures stand beside them. On an idle machine the two agree\n")
		p("for the one-goroutine benchmarks. For a parallel benchmark the CPU time is summed over the Ps (about\n")
		p("GOMAXPROCS times the wall-clock time per call when every P has a core to itself). All ratios are\n")
		p("taken within this one run.\n\n")
	} else {
		p("All ratios are taken within this one run, on the same machine.\n\n")
	}
	p("## Machine and run\n\n")
	p("| | |\n|---|---|\n")
	p("| CPU | %s |\n", cpuText(m, d))
	if m.GoVersion != "" {
		p("| Go | %s %s/%s |\n", m.GoVersion, m.GOOS, m.GOARCH)
	}
	if m.Kernel != "" {
		p("| Kernel | Linux %s |\n", m.Kernel)
	}
	if m.Benchtime != "" {
		p("| Run | %d rounds of the whole set, each benchmark `-benchtime %s`, `-cpu %s`; %s, %s |\n",
			m.Rounds, m.Benchtime, m.CPUList, m.Date, m.Duration)
	}
	if m.LoadBefore != "" {
		p("| Load average (1, 5, 15 min) | before %s, after %s: the machine is shared, see the reading |\n", m.LoadBefore, m.LoadAfter)
	}
	if len(m.Modules) > 0 {
		p("| Peers | %s |\n", modulesText(m.Modules))
	}
	p("\n")

	p("## Budgets (SPEC.md, Performance budgets)\n\n")
	p("Ratios to `Floor` (`FloorParallel` for parallel benchmarks) and between libraries, medians of this run,\n")
	p("on CPU time per call when measured (the wall-clock ratio follows it).\n")
	p("\"Peer ÷ r4c\" is the peer's time per call divided by r4c's: 3.0 means r4c is three times faster.\n\n")
	renderBudgets(&b, d)

	p("## Reading\n\n")
	p("%s\n", beginReading)
	if reading == "" {
		reading = "(To be written after a run: where the budgets are met or missed, by how much, and why.)"
	}
	p("%s\n", reading)
	p("%s\n\n", endReading)

	p("## Results\n\n")
	p("Each table: the median time per call (CPU and wall clock), bytes and allocations per call, the time\n")
	p("divided by the floor's at the same GOMAXPROCS, and the time divided by r4c's for the same work (\"÷ r4c-core\":\n")
	p("2.00 means twice r4c-core's time). benchstat's tables follow each one, with 95 %% confidence intervals\n")
	p("(benchstat reports the times in seconds: `cpu-sec/op` is the `cpu-ns/op` metric).\n\n")
	for _, s := range sections() {
		p("### %s\n\n%s\n\n", s.title, s.about)
		renderSection(&b, d, s)
		if t := tables[s.name]; t != "" {
			p("<details><summary>benchstat</summary>\n\n```text\n%s\n```\n\n</details>\n\n", t)
		}
	}

	p("## How to rerun\n\n")
	p("```sh\ncd bench\n./run.sh                                  # about 7 minutes on 2 cores: runs, then rewrites this page\n")
	p("./run.sh -count 3 -benchtime 100ms         # quicker, noisier\n")
	p("./run.sh -in results/bench.txt             # render again from the saved results\n")
	p("go test -run '^$' -bench AdaptiveLimit -benchmem -cpu 1,2 .   # a group by hand\n")
	p("go tool benchstat results/bench.txt       # benchstat is the module's tool dependency\n```\n\n")
	p("`run.sh` runs `go run ./cmd/report`: it compiles the benchmarks once, runs the whole set `-count` times\n")
	p("(rounds, so that a busy spell on a shared machine falls on every library alike), saves the raw results\n")
	p("in `bench/results/bench.txt` (Go benchmark format) with the run's details in `bench/results/bench.json`,\n")
	p("and renders this page with benchstat (`go tool benchstat`, a tool dependency in `bench/go.mod`, fetched\n")
	p("through the Go module proxy on a fresh machine). `go test ./...` in `bench` runs every benchmark body a\n")
	p("few times and checks r4c's allocation budgets, so CI catches a benchmark that stopped working.\n")
	return b.String()
}

func roundsText(m meta, d *data) string {
	n := 0
	for _, s := range d.m {
		n = max(n, len(s.ns))
	}
	if m.Benchtime != "" {
		return fmt.Sprintf("%d rounds", n)
	}
	return fmt.Sprintf("%d runs", n)
}

func cpuText(m meta, d *data) string {
	var parts []string
	if m.CPUModel != "" {
		parts = append(parts, m.CPUModel+" (/proc/cpuinfo)")
	}
	brand := m.CPUBrand
	if brand == "" {
		brand = d.cpu
	}
	if brand != "" && brand != m.CPUModel {
		parts = append(parts, strings.TrimSpace(brand)+" (go test)")
	}
	s := strings.Join(parts, ", ")
	if m.CPUs > 0 {
		s += fmt.Sprintf("; %d logical CPUs", m.CPUs)
	}
	return s
}

func modulesText(mods map[string]string) string {
	var s []string
	for _, path := range []string{"github.com/failsafe-go/failsafe-go", "github.com/platinummonkey/go-concurrency-limits",
		"github.com/sony/gobreaker/v2", "golang.org/x/time", "golang.org/x/perf"} {
		if v, ok := mods[path]; ok {
			s = append(s, fmt.Sprintf("%s %s", path, v))
		}
	}
	return strings.Join(s, ", ")
}

// renderSection writes a section's summary table.
func renderSection(b *strings.Builder, d *data, s section) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	var refs []string
	if len(s.benchmarks) == 0 {
		for _, r := range s.refs {
			if slices.Contains(d.libs[s.name], r) {
				refs = append(refs, r)
			}
		}
	}
	first := "Library"
	if len(s.benchmarks) > 0 {
		first = "Benchmark"
	}
	cpuCol, cpuAlign := "", ""
	if d.byCPU {
		cpuCol, cpuAlign = " CPU ns/op |", "--:|"
	}
	p("| %s | GOMAXPROCS |%s wall ns/op | B/op | allocs/op | × floor |", first, cpuCol)
	for _, r := range refs {
		p(" ÷ %s |", r)
	}
	p("\n|---|--:|%s--:|--:|--:|--:|%s\n", cpuAlign, strings.Repeat("--:|", len(refs)))
	type row struct{ bench, lib, label string }
	var rows []row
	if len(s.benchmarks) > 0 {
		for _, bn := range s.benchmarks {
			rows = append(rows, row{bn, "", bn})
		}
	} else {
		for _, lib := range d.libs[s.name] {
			rows = append(rows, row{s.name, lib, lib})
		}
	}
	any := false
	for _, procs := range d.procs {
		for _, r := range rows {
			st := d.get(r.bench, r.lib, procs)
			if !st.ok {
				continue
			}
			any = true
			label := r.label
			if strings.HasPrefix(label, "r4c") {
				label = "**" + label + "**"
			}
			p("| %s | %d |", label, procs)
			if d.byCPU {
				p(" %s |", ns(st.cpu))
			}
			p(" %s | %s | %s | %s |", ns(st.ns), num(st.bytes), num(st.allocs), ratio(st, d.get(s.floor, "", procs)))
			for _, ref := range refs {
				p(" %s |", ratio(st, d.get(s.name, ref, procs)))
			}
			p("\n")
		}
	}
	if !any {
		p("| (not measured in this run) |\n")
	}
	p("\n")
}

func ns(v float64) string {
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func num(v float64) string { return fmt.Sprintf("%.0f", v) }

// ratio returns st's time divided by ref's, or a dash.
func ratio(st, ref stat) string {
	if !ref.ok || ref.t == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", st.t/ref.t)
}

// renderBudgets writes SPEC.md's budgets with this run's figures.
func renderBudgets(b *strings.Builder, d *data) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("| Budget |")
	for _, procs := range d.procs {
		p(" GOMAXPROCS %d |", procs)
	}
	p("\n|---|%s\n", strings.Repeat("---|", len(d.procs)))
	cell := func(f func(procs int) string) {
		for _, procs := range d.procs {
			p(" %s |", f(procs))
		}
		p("\n")
	}
	floorOf := func(bench string) string {
		if strings.HasSuffix(bench, "Parallel") {
			return "FloorParallel"
		}
		return "Floor"
	}
	// wall adds the wall-clock ratio when the verdict is on CPU time.
	wall := func(a, b stat) string {
		if !d.byCPU {
			return ""
		}
		return fmt.Sprintf("; wall %.2f×", a.ns/b.ns)
	}
	atMost := func(what, bench, lib string, limit float64) {
		p("| %s: at most %.1f× floor |", what, limit)
		cell(func(procs int) string {
			st, fl := d.get(bench, lib, procs), d.get(floorOf(bench), "", procs)
			if !st.ok || !fl.ok {
				return "not measured"
			}
			r := st.t / fl.t
			fig := fmt.Sprintf("%.2f× (%s / %s ns%s)", r, ns(st.t), ns(fl.t), wall(st, fl))
			if r <= limit {
				return fig + ": met"
			}
			return fmt.Sprintf("%s: **missed by %.0f %%**", fig, (r/limit-1)*100)
		})
	}
	noAllocs := func(what, bench, lib string) {
		p("| %s: 0 allocs/op |", what)
		cell(func(procs int) string {
			if !d.get(bench, lib, procs).ok {
				return "not measured"
			}
			if a := d.maxAllocs(bench, lib, procs); a > 0 {
				return fmt.Sprintf("**missed: %.0f allocs/op**", a)
			}
			return "0: met"
		})
	}
	atLeast := func(what, bench, peer, r4c string, limit float64) {
		p("| %s: r4c at least %.0f× faster |", what, limit)
		cell(func(procs int) string {
			pe, r := d.get(bench, peer, procs), d.get(bench, r4c, procs)
			if !pe.ok || !r.ok {
				return "not measured"
			}
			x := pe.t / r.t
			fig := fmt.Sprintf("%.1f× (%s / %s ns%s)", x, ns(pe.t), ns(r.t), wall(pe, r))
			if x >= limit {
				return fig + ": met"
			}
			return fig + ": **missed**"
		})
	}
	atMost("Admitted call, one-policy adaptive-limit pipeline (AdaptiveLimitAdmitted/r4c-pipeline)", "AdaptiveLimitAdmitted", "r4c-pipeline", 1.3)
	noAllocs("Admitted call, one-policy adaptive-limit pipeline", "AdaptiveLimitAdmitted", "r4c-pipeline")
	atMost("Rejection through the pipeline (AdaptiveLimitRejected/r4c-pipeline)", "AdaptiveLimitRejected", "r4c-pipeline", 0.1)
	noAllocs("Rejection through the pipeline", "AdaptiveLimitRejected", "r4c-pipeline")
	atMost("Full synchronous pipeline, success (Pipeline/r4c)", "Pipeline", "r4c", 2)
	noAllocs("Full synchronous pipeline, success", "Pipeline", "r4c")
	for _, lib := range []string{"r4c-cooperative", "r4c"} {
		p("| A timeout adds no more than its deadline context costs (PipelineTimeout/%s − Pipeline/r4c ≤ DeadlineContext) |", lib)
		cell(func(procs int) string {
			t, base, dl := d.get("PipelineTimeout", lib, procs), d.get("Pipeline", "r4c", procs), d.get("DeadlineContext", "", procs)
			if !t.ok || !base.ok || !dl.ok {
				return "not measured"
			}
			added := t.t - base.t
			fig := fmt.Sprintf("adds %s ns, the context costs %s ns", ns(added), ns(dl.t))
			if added <= dl.t {
				return fig + ": met"
			}
			return fmt.Sprintf("%s: **missed by %.0f %%**", fig, (added/dl.t-1)*100)
		})
	}
	for _, bench := range []string{"AdaptiveLimitAdmitted", "AdaptiveLimitParallel"} {
		for _, peer := range []string{"failsafe-direct", "failsafe-executor", "gcl-gradient2", "gcl-aimd"} {
			atLeast(fmt.Sprintf("%s: %s ÷ r4c-pipeline", bench, peer), bench, peer, "r4c-pipeline", 3)
		}
	}
	atLeast("Pipeline: failsafe-executor ÷ r4c", "Pipeline", "failsafe-executor", "r4c", 10)
	atLeast("PipelineParallel: failsafe-executor ÷ r4c", "PipelineParallel", "failsafe-executor", "r4c", 10)
	p("| Parallel admitted calls take no mutex (no figure in the budget; shown: AdaptiveLimitParallel/r4c-pipeline and PipelineParallel/r4c ÷ FloorParallel) |")
	cell(func(procs int) string {
		a, pl, fl := d.get("AdaptiveLimitParallel", "r4c-pipeline", procs), d.get("PipelineParallel", "r4c", procs), d.get("FloorParallel", "", procs)
		if !a.ok || !pl.ok || !fl.ok {
			return "not measured"
		}
		return fmt.Sprintf("%.2f× and %.2f×", a.t/fl.t, pl.t/fl.t)
	})
	p("\n")
}
