package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// printIntro says what is about to happen.
func printIntro(out io.Writer, cfg config) {
	dropped := phasesOf(cfg, cfg.Duration)[1].workers
	fmt.Fprintf(out, "r4c overload demo\n")
	fmt.Fprintf(out, "  server  127.0.0.1, %s, %v a request on average: %.0f requests/s at full capacity;\n",
		workers(cfg.Workers), cfg.Service, cfg.capacity())
	fmt.Fprintf(out, "          %s (%.0f requests/s) during the middle third of each run\n",
		workers(dropped), float64(dropped)/cfg.Service.Seconds())
	fmt.Fprintf(out, "  load    %.0f requests/s (%g× full capacity), arriving at random, each on its own goroutine\n",
		cfg.rate(), cfg.Load)
	fmt.Fprintf(out, "  client  gives up on a request after %v\n", cfg.Timeout)
}

func printProgressHeader(out io.Writer) {
	fmt.Fprintln(out, "   time  workers  limit  in flight      p50      p99  answered/s  rejected/s  timed out/s")
}

// printProgress prints a progress line; limited tells whether the client
// has a limit to show.
func printProgress(out io.Writer, p progress, limited bool) {
	limit := "-"
	if limited {
		limit = fmt.Sprint(p.state.limit)
	}
	p50, p99 := "-", "-"
	if p.hasLatency {
		p50, p99 = ms(p.p50), ms(p.p99)
	}
	fmt.Fprintf(out, "%7s  %7d  %5s  %9d  %7s  %7s  %10.0f  %10.0f  %11.0f\n",
		p.end, p.state.workers, limit, p.state.inFlight, p50, p99, p.answered, p.rejected, p.timedOut)
}

// printSummary compares the runs phase by phase, then in one line each.
func printSummary(out io.Writer, cfg config, runs []*result) {
	row := func(name string, cells []string) {
		fmt.Fprintf(out, "  %-20s", name)
		for _, c := range cells {
			fmt.Fprintf(out, "%16s", c)
		}
		fmt.Fprintln(out)
	}
	perSecond := func(o outcome) func(*tally, time.Duration) string {
		return func(t *tally, d time.Duration) string {
			return fmt.Sprintf("%.0f/s", float64(t.count[o])/d.Seconds())
		}
	}
	latency := func(t *tally, _ time.Duration) string {
		p50, ok := t.percentile(0.50)
		if !ok {
			return "-"
		}
		p99, _ := t.percentile(0.99)
		return strings.TrimSuffix(ms(p50), "ms") + " / " + ms(p99)
	}

	fmt.Fprintf(out, "\nsummary, phase by phase (requests counted in the phase they were sent in)\n")
	first := runs[0]
	var names, capacity []string
	for _, p := range first.phases {
		names = append(names, p.name)
		capacity = append(capacity, fmt.Sprintf("%.0f/s", float64(p.workers)/cfg.Service.Seconds()))
	}
	row("", append(names, "whole run"))
	row("server capacity", append(capacity, fmt.Sprintf("%.0f/s", first.servable(cfg)/first.duration.Seconds())))
	for _, r := range runs {
		fmt.Fprintf(out, "  %s\n", r.name)
		row("  answered in time", r.cells(perSecond(answered)))
		row("  latency p50 / p99", r.cells(latency))
		if r.limited {
			row("  rejected at once", r.cells(perSecond(rejected)))
		}
		row("  timed out", r.cells(perSecond(timedOut)))
		if r.total.count[failed] > 0 {
			row("  failed otherwise", r.cells(perSecond(failed)))
		}
	}

	fmt.Fprintln(out)
	for _, r := range runs {
		t := &r.total
		p99, _ := t.percentile(0.99)
		fmt.Fprintf(out, "%-22s answered %3.0f%% of what the server could serve, p99 %s;",
			r.name+":", 100*float64(t.count[answered])/r.servable(cfg), ms(p99))
		if r.limited {
			fmt.Fprintf(out, " rejected %.0f%% of the requests at once,", percent(t.count[rejected], t.requests()))
		}
		fmt.Fprintf(out, " %.1f%% timed out\n", percent(t.count[timedOut], t.requests()))
	}
}

// cells applies f to each phase's tally and length, then to the whole
// run's.
func (r *result) cells(f func(t *tally, d time.Duration) string) []string {
	var cells []string
	for i := range r.phases {
		cells = append(cells, f(&r.perPhase[i], r.phaseLength(i)))
	}
	return append(cells, f(&r.total, r.duration))
}

// phaseLength returns the length of phase i.
func (r *result) phaseLength(i int) time.Duration {
	if i+1 < len(r.phases) {
		return r.phases[i+1].start - r.phases[i].start
	}
	return r.duration - r.phases[i].start
}

// servable returns how many requests the server could have served during
// the run, had it been kept busy without ever working for a client that
// had given up.
func (r *result) servable(cfg config) float64 {
	n := 0.0
	for i, p := range r.phases {
		n += float64(p.workers) / cfg.Service.Seconds() * r.phaseLength(i).Seconds()
	}
	return n
}

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// ms formats a latency in milliseconds.
func ms(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%dms", d.Round(time.Millisecond).Milliseconds())
}

// workers returns "1 worker" or "n workers".
func workers(n int) string {
	if n == 1 {
		return "1 worker"
	}
	return fmt.Sprintf("%d workers", n)
}
