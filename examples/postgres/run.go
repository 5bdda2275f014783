package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// measured is what the first two steps found: the query, the server's
// capacity, and the deadline that follows.
type measured struct {
	query    string
	alone    time.Duration // the query's latency alone
	steps    []step        // the sweep
	capacity float64       // queries/s, the sweep's best
	knee     int           // the fewest clients that reach 95% of it
	deadline time.Duration // the clients', DeadlineX × alone
}

// run calibrates the query, sweeps for the knee, then runs every load
// through every client and prints the report. Interrupted (ctx done), it
// prints what it measured so far.
func run(ctx context.Context, cfg config, db database, out io.Writer) error {
	m, results, err := study(ctx, cfg, db, out)
	if err != nil {
		return err
	}
	printReport(out, cfg, m, results)
	if ctx.Err() != nil {
		fmt.Fprintln(out, "\n(interrupted: the figures above are what was measured until then)")
	}
	return nil
}

// study does the three steps and returns what they measured, printing its
// progress.
func study(ctx context.Context, cfg config, db database, out io.Writer) (m measured, results []*result, err error) {
	if err := cfg.check(); err != nil {
		return m, nil, err
	}
	if err := db.fresh(ctx); err != nil {
		return m, nil, err
	}
	fmt.Fprintf(out, "\n1/3  tuning the query to take about %v alone...\n", cfg.QueryTime)
	if m.query, m.alone, err = db.calibrate(ctx, cfg.QueryTime); err != nil {
		return m, nil, err
	}
	m.deadline = time.Duration(cfg.DeadlineX * float64(m.alone))
	fmt.Fprintf(out, "     %s: %s alone; client deadline %s (%gx)\n", m.query, ms(m.alone), ms(m.deadline), cfg.DeadlineX)

	fmt.Fprintf(out, "\n2/3  closed-loop sweep, %v a step, until the p50 passes the deadline...\n", cfg.SweepStep)
	m.steps = sweep(ctx, db.query, cfg.SweepStep, cfg.SweepMax, m.deadline)
	m.capacity, m.knee = kneeOf(m.steps)
	if m.knee == 0 || m.capacity <= 0 {
		if ctx.Err() != nil {
			return m, nil, ctx.Err()
		}
		return m, nil, errors.New("the sweep measured no throughput: every query failed")
	}
	printSweep(out, m)
	if rate := m.capacity * slices.Max(cfg.Loads); rate > maxRate {
		return m, nil, fmt.Errorf("-loads %v × capacity %.0f/s: %.0f queries/s is more than this demo sends (%d)",
			slices.Max(cfg.Loads), m.capacity, rate, maxRate)
	}

	total := len(cfg.Loads) * len(cfg.Clients)
	fmt.Fprintf(out, "\n3/3  open-loop load: %d runs of %v, figures over the last %v of each\n",
		total, cfg.Duration, cfg.Duration-cfg.Warmup)
	i := 0
	for li, load := range cfg.Loads {
		for _, name := range cfg.Clients {
			i++
			if ctx.Err() != nil {
				return m, results, nil
			}
			if err := db.fresh(ctx); err != nil {
				if ctx.Err() != nil {
					return m, results, nil
				}
				return m, results, err
			}
			c, err := newClient(name, m.knee, cfg.InitialLimit, m.deadline, db.query)
			if err != nil {
				return m, results, err
			}
			fmt.Fprintf(out, "     %2d/%d  %gx  %-24s", i, total, load, c.label())
			seed := cfg.Seed + uint64(li) // the same arrivals for every client at one load
			res := runOnce(ctx, cfg, m, load, seed, c, db.busy)
			fmt.Fprintf(out, " goodput %.2f, p99 %s, timed out %s, rejected %s\n",
				res.goodput, ms(res.p99), pct(res.timedOut, res.admitted), pct(res.rejected, res.offered))
			results = append(results, res)
		}
	}
	return m, results, nil
}

// outcome is how a query ended.
type outcome uint8

const (
	ok       outcome = iota // answered within the deadline
	timedOut                // the client gave up at the deadline (or the answer came later)
	rejected                // a limit refused it: the server never saw it
	failed                  // any other error
)

// classify returns the outcome of a query that returned err after elapsed.
func classify(err error, elapsed, deadline time.Duration) outcome {
	switch {
	case err == nil && elapsed <= deadline:
		return ok
	case err == nil:
		return timedOut // answered, but too late
	case errors.Is(err, policy.ErrRejected):
		return rejected
	case errors.Is(err, policy.ErrCallTimeout), errors.Is(err, context.DeadlineExceeded):
		return timedOut
	case elapsed >= deadline:
		return timedOut // the driver's own error for its deadline
	}
	return failed
}

// result is what one run measured, over its steady part (after the
// warm-up), queries counted by the instant they were sent.
type result struct {
	load    float64
	client  string // its label
	limited bool   // whether it has a limit

	offered, admitted            int
	answered, timedOut, rejected int
	failed                       int
	failures                     map[string]int // by message, the first few kinds

	goodput  float64       // answered per second over the capacity
	p50, p99 time.Duration // of the admitted queries; a timed-out one counts at its elapsed time

	limits             []int // the limit at the end of each second of the whole run
	inFlight           []int // the queries in flight at the end of each second
	goodBySecond       []int // the queries sent each second and answered in time, in % of the capacity
	running            []int // the queries the server runs at the end of each second (-1: unknown)
	conns              []int // the connections it has then (-1: unknown)
	limitMean          float64
	limitMin, limitMax int
	limitSamples       int
}

// maxFailureKinds bounds the failure messages a result keeps.
const maxFailureKinds = 5

// runOnce sends the load through c for cfg.Duration and measures it; busy
// tells how many queries the server is running and its connections.
func runOnce(ctx context.Context, cfg config, m measured, load float64, seed uint64, c client,
	busy func(context.Context) (int, int, error)) *result {
	cc := &counting{client: c}
	res := &result{load: load, client: c.label(), failures: map[string]int{}}
	_, res.limited = c.limit()

	var mu sync.Mutex
	var lats []time.Duration
	start := time.Now()
	steadyFrom := start.Add(cfg.Warmup)
	answeredBySecond := make([]int, int(cfg.Duration/time.Second)+1)
	record := func(began time.Time, err error) {
		elapsed := time.Since(began)
		o := classify(err, elapsed, m.deadline)
		mu.Lock()
		defer mu.Unlock()
		if s := int(began.Sub(start) / time.Second); o == ok && s < len(answeredBySecond) {
			answeredBySecond[s]++
		}
		if began.Before(steadyFrom) {
			return
		}
		res.offered++
		switch o {
		case ok:
			res.answered++
		case timedOut:
			res.timedOut++
		case rejected:
			res.rejected++
		case failed:
			res.failed++
			msg := err.Error()
			if _, seen := res.failures[msg]; seen || len(res.failures) < maxFailureKinds {
				res.failures[msg]++
			}
		}
		if o == ok || o == timedOut {
			res.admitted++
			lats = append(lats, elapsed)
		}
	}

	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		offer(ctx, load*m.capacity, cfg.Duration, rng, func() {
			began := time.Now()
			record(began, cc.do(ctx))
		})
	}()
	sampleLimits(ctx, res, cc, busy, start, steadyFrom, cfg.Duration, loadDone)
	<-loadDone

	slices.Sort(lats)
	res.p50, res.p99 = percentile(lats, 0.50), percentile(lats, 0.99)
	for _, n := range answeredBySecond[:len(res.limits)] {
		res.goodBySecond = append(res.goodBySecond, int(math.Round(100*float64(n)/m.capacity)))
	}
	if span := (cfg.Duration - cfg.Warmup).Seconds(); span > 0 {
		res.goodput = float64(res.answered) / span / m.capacity
	}
	return res
}

// sampleLimits samples the client's limit and queries in flight ten times
// a second until d has passed since start (or the load is over), keeping
// the value at the end of each second and the mean and range after
// steadyFrom. At the end of each second it also asks the server, on a
// goroutine of its own, how many queries it is running and how many
// connections it has (-1 if it does not answer within 500 ms), and waits
// for those answers before it returns.
func sampleLimits(ctx context.Context, res *result, c *counting, busy func(context.Context) (int, int, error),
	start, steadyFrom time.Time, d time.Duration, loadDone <-chan struct{}) {
	// One cell per whole second, filled in by the asks below: never
	// appended to while an ask may write.
	seconds := int(d / time.Second)
	res.running, res.conns = make([]int, seconds), make([]int, seconds)
	for i := range seconds {
		res.running[i], res.conns[i] = -1, -1
	}
	var asks sync.WaitGroup
	defer func() {
		asks.Wait()
		n := len(res.limits) // fewer than seconds if the load ended early
		res.running, res.conns = res.running[:n], res.conns[:n]
	}()
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	next := start.Add(time.Second)
	var sum float64
	for {
		select {
		case <-loadDone:
			// The load ends a moment before d (no arrival is due in the
			// last moment, and the last queries end fast): keep sampling
			// to the end of the last second, unless interrupted.
			if ctx.Err() != nil {
				return
			}
			loadDone = nil
		case now := <-ticker.C:
			lim, _ := c.limit()
			inFlight := c.inFlight()
			if !now.Before(steadyFrom) {
				if res.limitSamples == 0 {
					res.limitMin, res.limitMax = lim, lim
				}
				res.limitSamples++
				sum += float64(lim)
				res.limitMean = sum / float64(res.limitSamples)
				res.limitMin, res.limitMax = min(res.limitMin, lim), max(res.limitMax, lim)
			}
			for ; !now.Before(next) && next.Sub(start) <= d; next = next.Add(time.Second) {
				i := len(res.limits)
				res.limits = append(res.limits, lim)
				res.inFlight = append(res.inFlight, inFlight)
				asks.Go(func() {
					bctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
					defer cancel()
					if r, c, err := busy(bctx); err == nil {
						res.running[i], res.conns[i] = r, c
					}
				})
			}
			if now.Sub(start) >= d {
				return
			}
		}
	}
}
