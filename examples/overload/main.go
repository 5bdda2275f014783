// Command overload shows r4c's adaptive limit protecting an overloaded HTTP
// server, on your machine, in under a minute:
//
//	go run ./examples/overload
//
// It starts a real HTTP server on 127.0.0.1 whose capacity is limited: a
// fixed number of workers, a first-come-first-served queue in front of
// them, and a service time with some noise. Then it sends it more requests
// than it can serve (an open-loop load: requests arrive at random, at a
// fixed average rate, whether or not the earlier ones have been answered),
// twice:
//
//  1. through an r4c pipeline: an adaptive limit, a timeout inside it and a
//     retry outside it. The limit finds how many requests the server can
//     take at once and rejects the rest at once, so the requests it lets
//     through are served quickly.
//  2. straight at the server, with the same timeout and nothing else: the
//     queue grows until requests time out, and almost every answer comes
//     late.
//
// A third of the way into each run the server loses two thirds of its
// workers; two thirds of the way in it gets them back.
//
// While it runs, the program prints a line per second: the server's
// workers, the limit r4c has found and the requests in flight, the p50 and
// p99 latency of the requests answered in time during that second, and how
// many requests per second were answered in time, rejected at once by the
// limit, or timed out. Then it prints a summary of both runs, phase by
// phase, and writes a chart of the two (an SVG file; the last line says
// where).
//
// Flags:
//
//	-duration   length of the run through r4c (30s: 10s normal, 10s at a
//	            third of the capacity, 10s recovered); the run without r4c
//	            takes half as long, with the same three phases
//	-load       offered load, as a multiple of the server's full capacity (2)
//	-algorithm  how the limit adapts: little (the default here: the algorithm
//	            we recommend), gradient2 (the library's default), aimd, vegas,
//	            or any other value of the adaptiveLimit.algorithm key
//	-capacity   the server's workers at full capacity (30)
//	-seed       seed of the arrivals and the service times (1)
//	-chart      where to write the chart (overload.svg in the current
//	            directory, or in the temporary directory if that fails)
//	-dashboard  an address such as 127.0.0.1:8080: serve r4c's live
//	            dashboard (package dashboard) of the run through r4c there,
//	            and print its URL; open it in a browser while the run goes on
//
// Everything stays on the loopback interface, every loop is bounded in
// time and count, and the program closes everything it opened before it
// exits. Interrupt it (Ctrl-C) to stop early: it still prints what it saw.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"
)

func main() {
	cfg := defaultConfig()
	flag.DurationVar(&cfg.Duration, "duration", cfg.Duration, "length of the run through r4c: a third normal, a third at a third of the capacity, a third recovered")
	flag.Float64Var(&cfg.Load, "load", cfg.Load, "offered load, as a multiple of the server's full capacity")
	flag.StringVar(&cfg.Algorithm, "algorithm", cfg.Algorithm, "adaptive limit algorithm: little (recommended), gradient2 (the library's default), aimd or vegas")
	flag.IntVar(&cfg.Workers, "capacity", cfg.Workers, "the server's workers at full capacity")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the arrivals and the service times")
	flag.StringVar(&cfg.Dashboard, "dashboard", "", "serve r4c's live dashboard on this address while the run goes on, such as 127.0.0.1:8080 (the URL is printed)")
	flag.StringVar(&cfg.Chart, "chart", "", "where to write the SVG chart (default overload.svg in the current directory, else in "+os.TempDir()+")")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "overload: unexpected arguments %q\n", flag.Args())
		flag.Usage()
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "overload:", err)
		os.Exit(1)
	}
}

// config is everything a run depends on. The flags set some of it; the
// test sets the rest, to run the same program in a second or two.
type config struct {
	Duration    time.Duration // length of the run through r4c
	Unprotected time.Duration // length of the run without r4c (0: half of Duration)
	Load        float64       // offered load, as a multiple of full capacity
	Algorithm   string        // the adaptive limit's algorithm, as the flat key takes it
	Workers     int           // the server's workers at full capacity
	Service     time.Duration // the server's mean service time
	Timeout     time.Duration // how long a client waits for one answer
	Seed        uint64        // seed of the arrivals and the service times
	Chart       string        // the chart's path; "" for the default
	Tick        time.Duration // how often a progress line is printed
	Dashboard   string        // address to serve r4c's dashboard on; "" for none
}

func defaultConfig() config {
	return config{
		Duration:  30 * time.Second,
		Load:      2,
		Algorithm: "little",
		Workers:   30,
		Service:   100 * time.Millisecond,
		Timeout:   time.Second,
		Seed:      1,
		Tick:      time.Second,
	}
}

// maxRate bounds the load: without r4c, about rate × timeout requests are
// in flight at once, each holding a connection at both ends.
const maxRate = 5000

// check reports the first setting that cannot work.
func (c config) check() error {
	switch {
	case c.Duration <= 0 || c.Duration > time.Hour:
		return fmt.Errorf("-duration %v: must be positive and at most 1h", c.Duration)
	case c.Unprotected < 0 || c.Unprotected > time.Hour:
		return fmt.Errorf("the run without r4c (%v) must last between 0 and 1h", c.Unprotected)
	case !(c.Load > 0 && c.Load <= 100):
		return fmt.Errorf("-load %v: must be above 0 and at most 100", c.Load)
	case c.Workers < 1 || c.Workers > 10000:
		return fmt.Errorf("-capacity %d: must be between 1 and 10000", c.Workers)
	case c.Service <= 0 || c.Timeout <= 0 || c.Tick <= 0:
		return fmt.Errorf("service time, timeout and tick must be positive")
	case c.rate() > maxRate:
		return fmt.Errorf("-load %v × -capacity %d: %.0f requests/s is more than this demo sends (%d)", c.Load, c.Workers, c.rate(), maxRate)
	}
	return nil
}

// rate is the offered load in requests per second.
func (c config) rate() float64 {
	return c.Load * c.capacity()
}

// capacity is what the server serves per second at full capacity.
func (c config) capacity() float64 {
	return float64(c.Workers) / c.Service.Seconds()
}
