package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ms formats d in milliseconds, with a decimal below 10 ms.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " ms"
}

// pct formats n out of of as a percentage ("-" when of is 0).
func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	v := 100 * float64(n) / float64(of)
	switch {
	case n == 0:
		return "0%"
	case v < 1:
		return strconv.FormatFloat(v, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + "%"
}

// printSweep prints the sweep's steps as a table, and what it found.
func printSweep(out io.Writer, m measured) {
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| clients | queries/s | p50 | p99 | failed |")
	fmt.Fprintln(out, "|---:|---:|---:|---:|---:|")
	for _, s := range m.steps {
		mark := ""
		if s.clients == m.knee {
			mark = " ← knee"
		}
		fmt.Fprintf(out, "| %d%s | %.0f | %s | %s | %d |\n", s.clients, mark, s.rate, ms(s.p50), ms(s.p99), s.failed)
	}
	fmt.Fprintf(out, "\ncapacity %.0f queries/s (the median of the plateau), reached (95%%) at concurrency %d: the knee\n", m.capacity, m.knee)
}

// printReport prints the comparison: one table row per run, then the limit
// of each limited client second by second, then what failed, if anything.
func printReport(out io.Writer, cfg config, m measured, results []*result) {
	fmt.Fprintf(out, "\nquery alone %s, capacity %.0f queries/s at concurrency %d, client deadline %s;\n",
		ms(m.alone), m.capacity, m.knee, ms(m.deadline))
	fmt.Fprintf(out, "runs of %v, figures over the last %v (the first %v left out: the limits learn meanwhile)\n\n",
		cfg.Duration, cfg.Duration-cfg.Warmup, cfg.Warmup)
	fmt.Fprintln(out, "| load | client | goodput / capacity | p50 | p99 | timed out | rejected | failed | limit: mean (min-max) |")
	fmt.Fprintln(out, "|---|---|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range results {
		limit := "-"
		if r.limited && r.limitSamples > 0 {
			limit = fmt.Sprintf("%.1f (%d-%d)", r.limitMean, r.limitMin, r.limitMax)
		}
		fmt.Fprintf(out, "| %gx | %s | %.2f | %s | %s | %s | %s | %s | %s |\n",
			r.load, r.client, r.goodput, ms(r.p50), ms(r.p99),
			pct(r.timedOut, r.admitted), pct(r.rejected, r.offered), pct(r.failed, r.offered), limit)
	}
	fmt.Fprintln(out, "\ngoodput: queries answered within the deadline per second, over the capacity; p50, p99: of the")
	fmt.Fprintln(out, "queries admitted (a timed-out one counts at the deadline); timed out: share of the admitted;")
	fmt.Fprintln(out, "rejected, failed: share of the offered.")

	fmt.Fprintln(out, "\nthe limit at the end of each second (for no limit: the queries in flight):")
	printSeries(out, results, func(r *result) []int {
		if !r.limited {
			return r.inFlight
		}
		return r.limits
	})
	fmt.Fprintln(out, "\nthe goodput of each second, in % of the capacity (the queries sent that second and answered in time):")
	printSeries(out, results, func(r *result) []int { return r.goodBySecond })
	fmt.Fprintln(out, "\nthe queries the server was running at the end of each second (those whose client gave up included):")
	printSeries(out, results, func(r *result) []int { return r.running })
	fmt.Fprintln(out, "\nand its connections (each a process; a timeout closes one, the next query opens another):")
	printSeries(out, results, func(r *result) []int { return r.conns })

	for _, r := range results {
		if len(r.failures) == 0 {
			continue
		}
		fmt.Fprintf(out, "\nfailures, %gx %s:\n", r.load, r.client)
		for _, msg := range slices.Sorted(maps.Keys(r.failures)) {
			fmt.Fprintf(out, "  %5d  %s\n", r.failures[msg], msg)
		}
	}
}

// printSeries prints one line per result: its load, its client, and the
// values series returns, one per second ("?" for an unknown one).
func printSeries(out io.Writer, results []*result, series func(*result) []int) {
	width := 0
	for _, r := range results {
		width = max(width, len(r.client))
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "```")
	for _, r := range results {
		vals := series(r)
		cells := make([]string, len(vals))
		for i, v := range vals {
			if v < 0 {
				cells[i] = "  ?"
			} else {
				cells[i] = fmt.Sprintf("%3d", v)
			}
		}
		fmt.Fprintf(out, "%-4s %-*s %s\n", strconv.FormatFloat(r.load, 'g', -1, 64)+"x", width, r.client, strings.Join(cells, " "))
	}
	fmt.Fprintln(out, "```")
}
