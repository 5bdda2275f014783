package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// run sends the load through r4c, then straight at the server, then prints
// the summary and writes the chart.
func run(ctx context.Context, cfg config, out io.Writer) error {
	if cfg.Unprotected == 0 {
		cfg.Unprotected = cfg.Duration / 2
	}
	if err := cfg.check(); err != nil {
		return err
	}
	printIntro(out, cfg)

	fmt.Fprintf(out, "\n1/2  with r4c: retry → adaptive limit (%s) → timeout %v → server, for %v\n",
		strings.ToLower(cfg.Algorithm), cfg.Timeout, cfg.Duration)
	var live *liveDashboard
	with, err := runOnce(ctx, cfg, out, cfg.Duration, func(get request) (client, error) {
		p, err := newProtected(cfg, get)
		if err != nil || cfg.Dashboard == "" {
			return p, err
		}
		if live, err = startDashboard(cfg.Dashboard, p.reg); err != nil {
			return nil, err
		}
		printDashboard(out, live)
		return p, nil
	})
	if live != nil {
		err = errors.Join(err, live.stop())
	}
	if err != nil {
		return err
	}
	runs := []*result{with}
	if ctx.Err() == nil { // not interrupted
		fmt.Fprintf(out, "\n2/2  without r4c: the same load straight at the server, timeout %v, for %v\n",
			cfg.Timeout, cfg.Unprotected)
		without, err := runOnce(ctx, cfg, out, cfg.Unprotected, func(get request) (client, error) {
			return &unprotected{timeout: cfg.Timeout, get: get}, nil
		})
		if err != nil {
			return err
		}
		runs = append(runs, without)
	}

	printSummary(out, cfg, runs)
	path, err := writeChart(cfg, runs)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nchart: %s\n", path)
	return nil
}

// phase is a stretch of a run during which the server keeps its capacity.
type phase struct {
	name    string
	start   time.Duration // from the start of the run
	workers int
}

// phasesOf returns the three phases of a run of length d: full capacity, a
// third of it, full capacity again.
func phasesOf(cfg config, d time.Duration) []phase {
	third := max(1, (cfg.Workers+1)/3)
	return []phase{
		{"normal", 0, cfg.Workers},
		{"dropped", d / 3, third},
		{"recovered", 2 * d / 3, cfg.Workers},
	}
}

// phaseAt returns the index of the phase at offset t from the start.
func phaseAt(phases []phase, t time.Duration) int {
	for i := len(phases) - 1; i > 0; i-- {
		if t >= phases[i].start {
			return i
		}
	}
	return 0
}

// result is what one run saw.
type result struct {
	name     string // what the client was
	limited  bool   // whether the client had a concurrency limit
	duration time.Duration
	phases   []phase
	samples  []sample   // ten per tick
	progress []progress // one per tick
	total    tally
	perPhase []tally // by the time each request was sent
}

// sample is the state of a run at one instant.
type sample struct {
	at       time.Duration
	workers  int // the server's
	limit    int // the client's, if it has one
	inFlight int
}

// progress is the figures of one progress line: the state at the end of
// the tick and what ended during it.
type progress struct {
	end                          time.Duration
	state                        sample
	p50, p99                     time.Duration // of the answered requests
	hasLatency                   bool          // false when none was answered
	answered, rejected, timedOut float64       // per second
}

// runOnce starts a server, sends it the load through the client newClient
// makes, prints a progress line per tick, and closes everything before it
// returns.
func runOnce(ctx context.Context, cfg config, out io.Writer, duration time.Duration,
	newClient func(request) (client, error)) (res *result, err error) {
	srv, err := startServer(cfg.Workers, cfg.Service, cfg.Seed)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, srv.close()) }()
	hc := newHTTPClient()
	defer hc.CloseIdleConnections()
	c, err := newClient(get(hc, srv.url))
	if err != nil {
		return nil, err
	}
	_, limited := c.Limit()
	res = &result{name: c.Name(), limited: limited, duration: duration, phases: phasesOf(cfg, duration)}

	start := time.Now()
	rec := newRecorder(start, cfg.Tick, res.phases)
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		arrivals := rand.New(rand.NewPCG(cfg.Seed, 0xa11))
		offer(ctx, cfg.rate(), duration, arrivals, func(ctx context.Context) {
			began := time.Now()
			rec.record(began, c.Do(ctx))
		})
	}()
	watch(cfg, out, res, rec, srv, c, start, loadDone)
	<-loadDone // the last requests, sent just before the end, are ending
	res.total, res.perPhase = rec.tallies()
	return res, nil
}

// watch plays the server's part of the script (its capacity, phase by
// phase) and samples the run ten times per tick, printing a line per tick,
// until the end of the run, or of the load if that comes first.
func watch(cfg config, out io.Writer, res *result, rec *recorder, srv *server, c client,
	start time.Time, loadDone <-chan struct{}) {
	printProgressHeader(out)
	ticker := time.NewTicker(cfg.Tick / 10)
	defer ticker.Stop()
	for next := cfg.Tick; next <= res.duration; {
		over := false
		select {
		case <-loadDone: // interrupted, or the machine is so slow that the load is over
			over = true
		case <-ticker.C:
		}
		at := time.Since(start)
		s := sample{at: at, workers: res.phases[phaseAt(res.phases, at)].workers, inFlight: c.InFlight()}
		s.limit, _ = c.Limit()
		srv.setWorkers(s.workers)
		res.samples = append(res.samples, s)
		for ; next <= at && next <= res.duration; next += cfg.Tick {
			p := progressOf(rec.ofTick(int(next/cfg.Tick)-1), next, cfg.Tick, s)
			res.progress = append(res.progress, p)
			printProgress(out, p, res.limited)
		}
		if over {
			return
		}
	}
}

// progressOf turns what ended during a tick into a progress line's figures.
func progressOf(t tally, end, tick time.Duration, state sample) progress {
	perSecond := func(o outcome) float64 { return float64(t.count[o]) / tick.Seconds() }
	p := progress{end: end, state: state,
		answered: perSecond(answered), rejected: perSecond(rejected), timedOut: perSecond(timedOut)}
	p.p50, p.hasLatency = t.percentile(0.50)
	p.p99, _ = t.percentile(0.99)
	return p
}
