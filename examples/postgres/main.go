// Command postgres puts r4c's adaptive limit in front of a real PostgreSQL
// server, loads it past its capacity, and compares what each way of
// limiting the calls gets out of it.
//
// Run it with the script beside it, which starts a private cluster on the
// loopback interface, runs the program against it, and stops the cluster
// at the end:
//
//	examples/postgres/run.sh                  # a few minutes
//	R4C_PG_CPUS=1 examples/postgres/run.sh    # on a shared machine: the server gets a core of its own
//	examples/postgres/run.sh -h               # the flags
//
// or against a server of your own (one that nothing else uses: the
// program measures its capacity):
//
//	go run ./examples/postgres -dsn 'host=127.0.0.1 port=5432 user=me dbname=postgres'
//
// The program works in three steps:
//
//  1. It tunes a CPU-bound query (an aggregate over generate_series) until
//     it takes about -query-time alone.
//  2. It finds the server's capacity with a closed-loop sweep: n clients
//     each send the query again as soon as it returns, for n = 1, 2, 3, ...;
//     the capacity is the level of the plateau (the median throughput of
//     the steps from the first within 90% of the best), and the knee the
//     fewest clients that reach 95% of it. A database is not a queue in front of a
//     fixed number of workers: every running query shares the CPU, so past
//     the knee all of them slow down together.
//  3. It sends open-loop load (queries arrive at random, a Poisson process,
//     whether or not earlier ones have been answered) at each multiple of
//     the capacity that -loads lists, with a client deadline of -deadline-x
//     times the query's latency alone, through each client -clients lists:
//     none (the deadline alone), a bulkhead fixed at the knee (the best a
//     fixed limit can do, given the knee measured a minute earlier), and
//     r4c's adaptive limit with each algorithm, at its defaults but for the
//     algorithm. It prints, for each, the goodput (queries answered in time
//     per second, over the capacity), the p50 and p99 latency of the calls
//     admitted, the share that timed out and the share rejected, and the
//     limit over time, and what the server was doing meanwhile.
//
// At a deadline, pgx (at its defaults) returns at once, and in the
// background sends the server a cancel request and closes the connection;
// the next query opens a new one. PostgreSQL starts a process for each
// connection and each cancel request, so timeouts cost the server CPU of
// their own. -server-cancel keeps the connections instead (the client waits
// for the server to cancel the query). -initial-limit sets the adaptive
// limits' initial limit (20 by default, above the knee of a small server).
//
// Everything stays on the loopback interface; every loop is bounded in time
// and in count; each run waits for the server to be idle before it starts,
// and the program closes every connection it opened before it exits.
// Interrupt it (Ctrl-C) to stop early: it prints what it has measured.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	cfg := defaultConfig()
	fs := flag.CommandLine
	fs.StringVar(&cfg.DSN, "dsn", os.Getenv("R4C_PG_DSN"), "the server to use, as a pgx connection string (default $R4C_PG_DSN); run.sh sets it")
	fs.DurationVar(&cfg.QueryTime, "query-time", cfg.QueryTime, "how long the query should take alone")
	fs.Var(floatList{&cfg.Loads}, "loads", "offered loads, as multiples of the measured capacity, comma-separated")
	fs.Var(stringList{&cfg.Clients}, "clients", "the clients to compare, comma-separated: "+strings.Join(clientNames, ", "))
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "length of each open-loop run")
	fs.DurationVar(&cfg.Warmup, "warmup", cfg.Warmup, "the start of each run left out of the figures (the limits learn meanwhile)")
	fs.Float64Var(&cfg.DeadlineX, "deadline-x", cfg.DeadlineX, "the client deadline, as a multiple of the query's latency alone")
	fs.DurationVar(&cfg.SweepStep, "sweep-step", cfg.SweepStep, "length of each step of the closed-loop sweep")
	fs.IntVar(&cfg.SweepMax, "sweep-max", cfg.SweepMax, "the most clients the sweep tries")
	fs.IntVar(&cfg.Pool, "pool", cfg.Pool, "the most connections the client opens (capped below the server's max_connections)")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the arrivals")
	fs.IntVar(&cfg.InitialLimit, "initial-limit", cfg.InitialLimit, "the adaptive limits' initial limit (0: their default, 20)")
	fs.BoolVar(&cfg.ServerCancel, "server-cancel", cfg.ServerCancel, "at a deadline, ask the server to cancel the query and wait for it, keeping the connection (default, as pgx does: return at once, cancel and close the connection in the background)")
	fs.Parse(os.Args[1:])
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "postgres: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		os.Exit(2)
	}
	if err := cfg.check(); err != nil {
		fmt.Fprintln(os.Stderr, "postgres:", err)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runDemo(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "postgres:", err)
		os.Exit(1)
	}
}

// runDemo connects to the server, runs the demo against it and closes
// every connection before it returns.
func runDemo(ctx context.Context, cfg config, out *os.File) error {
	db, err := openPostgres(ctx, cfg.DSN, cfg.Pool, cfg.ServerCancel)
	if err != nil {
		return err
	}
	defer db.close()
	fmt.Fprintf(out, "server: %s\n", db.version)
	fmt.Fprintf(out, "client pool: at most %d connections (the server allows %d)\n", db.poolMax, db.maxConnections)
	if cfg.ServerCancel {
		fmt.Fprintln(out, "at a deadline the client asks the server to cancel the query, waits for it, and keeps the connection")
	} else {
		fmt.Fprintln(out, "at a deadline the client returns at once, and pgx cancels the query and closes the connection (its default)")
	}
	return run(ctx, cfg, db, out)
}

// config is everything the demo depends on; the flags set it.
type config struct {
	DSN       string
	QueryTime time.Duration // target latency of the query alone
	Loads     []float64     // offered loads, as multiples of the capacity
	Clients   []string      // the clients to compare, by name
	Duration  time.Duration // length of each open-loop run
	Warmup    time.Duration // start of each run left out of the figures
	DeadlineX float64       // client deadline, in multiples of the latency alone
	SweepStep time.Duration // length of each step of the sweep
	SweepMax  int           // most clients the sweep tries
	Pool      int           // most connections the client opens
	Seed      uint64        // seed of the arrivals
	// InitialLimit is the adaptive limits' initial limit; 0 leaves each
	// at its default (20 for all of them).
	InitialLimit int
	// ServerCancel: at a deadline, cancel the query on the server rather
	// than close the connection (see openPostgres).
	ServerCancel bool
}

func defaultConfig() config {
	return config{
		QueryTime: 7 * time.Millisecond,
		Loads:     []float64{2, 4},
		Clients:   append([]string(nil), clientNames...),
		Duration:  15 * time.Second,
		Warmup:    5 * time.Second,
		DeadlineX: 10,
		SweepStep: 1500 * time.Millisecond,
		SweepMax:  32,
		Pool:      200,
		Seed:      1,
	}
}

// maxRate bounds the offered load: without a limit, about rate × deadline
// queries are in flight at once, each holding a connection.
const maxRate = 20000

// check reports the first setting that cannot work, with the flag, its
// value and the rule.
func (c config) check() error {
	switch {
	case c.DSN == "":
		return fmt.Errorf("-dsn is empty: give the server to use (run.sh starts one and sets it)")
	case c.QueryTime < 100*time.Microsecond || c.QueryTime > 10*time.Second:
		return fmt.Errorf("-query-time %v: must be between 100µs and 10s", c.QueryTime)
	case len(c.Loads) == 0:
		return fmt.Errorf("-loads is empty: give at least one multiple of the capacity")
	case len(c.Clients) == 0:
		return fmt.Errorf("-clients is empty: give at least one of %s", strings.Join(clientNames, ", "))
	case c.Duration < 100*time.Millisecond || c.Duration > time.Hour:
		return fmt.Errorf("-duration %v: must be between 100ms and 1h", c.Duration)
	case c.Warmup < 0 || c.Warmup >= c.Duration:
		return fmt.Errorf("-warmup %v: must be at least 0 and shorter than -duration %v", c.Warmup, c.Duration)
	case !(c.DeadlineX >= 1 && c.DeadlineX <= 1000):
		return fmt.Errorf("-deadline-x %v: must be between 1 and 1000", c.DeadlineX)
	case c.SweepStep < 50*time.Millisecond || c.SweepStep > time.Minute:
		return fmt.Errorf("-sweep-step %v: must be between 50ms and 1m", c.SweepStep)
	case c.SweepMax < 1 || c.SweepMax > 1000:
		return fmt.Errorf("-sweep-max %d: must be between 1 and 1000", c.SweepMax)
	case c.Pool < 1 || c.Pool > 10000:
		return fmt.Errorf("-pool %d: must be between 1 and 10000", c.Pool)
	case c.InitialLimit < 0 || c.InitialLimit > 200:
		return fmt.Errorf("-initial-limit %d: must be between 0 (each limit's default) and 200 (their maximum)", c.InitialLimit)
	}
	for _, l := range c.Loads {
		if !(l > 0 && l <= 100) {
			return fmt.Errorf("-loads %v: each load must be above 0 and at most 100", l)
		}
	}
	for _, name := range c.Clients {
		if !knownClient(name) {
			return fmt.Errorf("-clients %q: unknown client; the clients are %s", name, strings.Join(clientNames, ", "))
		}
	}
	return nil
}

// floatList is a flag of comma-separated numbers.
type floatList struct{ p *[]float64 }

func (f floatList) String() string {
	if f.p == nil {
		return ""
	}
	s := make([]string, len(*f.p))
	for i, v := range *f.p {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func (f floatList) Set(s string) error {
	var out []float64
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(part, "x"), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", part)
		}
		out = append(out, v)
	}
	*f.p = out
	return nil
}

// stringList is a flag of comma-separated names.
type stringList struct{ p *[]string }

func (f stringList) String() string {
	if f.p == nil {
		return ""
	}
	return strings.Join(*f.p, ",")
}

func (f stringList) Set(s string) error {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.ToLower(strings.TrimSpace(part)); part != "" {
			out = append(out, part)
		}
	}
	*f.p = out
	return nil
}
