package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"
)

// writeChart draws the runs side by side, a column each, and writes the
// chart to cfg.Chart, or by default to overload.svg in the current
// directory, or in the temporary directory if that fails. It returns the
// path it wrote.
func writeChart(cfg config, runs []*result) (string, error) {
	svg := figure(cfg, runs).svg()
	path := cfg.Chart
	if path == "" {
		path = "overload.svg"
	}
	err := os.WriteFile(path, svg, 0o644)
	if err != nil && cfg.Chart == "" {
		path = filepath.Join(os.TempDir(), "overload.svg")
		err = os.WriteFile(path, svg, 0o644)
	}
	if err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

// figure lays out the chart: a column per run, and three rows: requests in
// flight (with the limit and the server's workers), latency, and requests
// per second by outcome. Latency and requests per second share their
// scales across the columns, so that the runs compare at a glance.
func figure(cfg config, runs []*result) chart {
	c := chart{title: fmt.Sprintf("r4c overload demo: %.0f requests/s offered to a server of %.0f/s, whose capacity drops to a third (shaded)",
		cfg.rate(), cfg.capacity())}
	var latencyMax, rateMax float64
	for _, r := range runs {
		for _, p := range r.progress {
			latencyMax = math.Max(latencyMax, msf(p.p99))
			rateMax = math.Max(rateMax, math.Max(p.answered, math.Max(p.rejected, p.timedOut)))
		}
	}
	latencyMax = niceCeil(1.1 * math.Max(latencyMax, msf(cfg.Timeout))) // room above the timeout line
	rateMax = niceCeil(rateMax)

	var inFlight, latency, rates []panel
	for _, r := range runs {
		c.columns = append(c.columns, r.name)
		inFlight = append(inFlight, inFlightPanel(r))
		latency = append(latency, latencyPanel(r, cfg, latencyMax))
		rates = append(rates, ratePanel(r, cfg, rateMax))
	}
	c.panels = append(append(inFlight, latency...), rates...)
	return c
}

// panelOf returns an empty panel spanning r, its capacity drop shaded.
func panelOf(r *result, title string) panel {
	return panel{title: title, xMax: r.duration.Seconds(),
		shade: [2]float64{r.phases[1].start.Seconds(), r.phases[2].start.Seconds()}}
}

func inFlightPanel(r *result) panel {
	workers := line{name: "server workers", color: grey, dashed: true}
	inFlight := line{name: "in flight", color: blue}
	limit := line{name: "limit", color: orange}
	for _, s := range r.samples {
		x := s.at.Seconds()
		workers.points = append(workers.points, point{x, float64(s.workers)})
		inFlight.points = append(inFlight.points, point{x, float64(s.inFlight)})
		limit.points = append(limit.points, point{x, float64(s.limit)})
	}
	p := panelOf(r, "requests in flight")
	p.lines = []line{workers, inFlight}
	if r.limited {
		p.lines = append(p.lines, limit)
	}
	return p
}

func latencyPanel(r *result, cfg config, yMax float64) panel {
	timeout := line{name: "timeout", color: grey, dashed: true,
		points: []point{{0, msf(cfg.Timeout)}, {r.duration.Seconds(), msf(cfg.Timeout)}}}
	p50 := line{name: "p50", color: green}
	p99 := line{name: "p99", color: red}
	for _, pr := range r.progress {
		x, y50, y99 := midTick(pr, cfg), math.NaN(), math.NaN() // NaN: a gap where nothing was answered
		if pr.hasLatency {
			y50, y99 = msf(pr.p50), msf(pr.p99)
		}
		p50.points = append(p50.points, point{x, y50})
		p99.points = append(p99.points, point{x, y99})
	}
	p := panelOf(r, "latency of the answered requests")
	p.unit, p.yMax = "ms", yMax
	p.lines = []line{timeout, p50, p99}
	return p
}

func ratePanel(r *result, cfg config, yMax float64) panel {
	answered := line{name: "answered in time", color: green}
	timedOut := line{name: "timed out", color: red}
	rejected := line{name: "rejected", color: purple}
	for _, pr := range r.progress {
		x := midTick(pr, cfg)
		answered.points = append(answered.points, point{x, pr.answered})
		timedOut.points = append(timedOut.points, point{x, pr.timedOut})
		rejected.points = append(rejected.points, point{x, pr.rejected})
	}
	p := panelOf(r, "requests per second")
	p.yMax = yMax
	p.lines = []line{answered, timedOut}
	if r.limited {
		p.lines = append(p.lines, rejected)
	}
	return p
}

// midTick returns the middle of a progress line's tick, in seconds.
func midTick(p progress, cfg config) float64 { return (p.end - cfg.Tick/2).Seconds() }

// msf returns d in milliseconds.
func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
