package main

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// step is what one step of the closed-loop sweep measured.
type step struct {
	clients  int
	rate     float64       // queries answered per second
	p50, p99 time.Duration // their latency
	failed   int           // queries that failed
}

// sweepLevels are the concurrencies the sweep tries, up to its maximum.
func sweepLevels(maxClients int) []int {
	var out []int
	for n := 1; n <= maxClients; {
		out = append(out, n)
		switch {
		case n < 6:
			n++
		case n < 12:
			n += 2
		case n < 24:
			n += 4
		default:
			n += n / 3
		}
	}
	return out
}

// sweep runs the closed-loop sweep: for each level of sweepLevels, that
// many clients each send the query again as soon as it returns, for d; the
// first fifth of each step is left out of its figures. It stops after the
// step whose p50 passes stopAt (past it the server only slows down) or when
// ctx is done, and returns the steps measured. Each query has 10 × stopAt
// at most, so that a server that hangs cannot hold the sweep forever.
func sweep(ctx context.Context, q func(context.Context) error, d time.Duration, maxClients int,
	stopAt time.Duration) []step {
	var steps []step
	for _, n := range sweepLevels(maxClients) {
		if ctx.Err() != nil {
			break
		}
		s := closedLoop(ctx, q, n, d, 10*stopAt)
		steps = append(steps, s)
		if s.p50 > stopAt {
			break
		}
	}
	return steps
}

// closedLoop runs n clients in a closed loop for d and measures the
// queries that end in the last four fifths of it. Every client finishes its query in flight (its own
// deadline at most) before closedLoop returns.
func closedLoop(ctx context.Context, q func(context.Context) error, n int, d, deadline time.Duration) step {
	type done struct {
		end time.Time
		lat time.Duration
		err error
	}
	start := time.Now()
	from, to := start.Add(d/5), start.Add(d)
	var stop atomic.Bool
	per := make([][]done, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			for !stop.Load() && ctx.Err() == nil {
				qctx, cancel := context.WithTimeout(ctx, deadline)
				began := time.Now()
				err := q(qctx)
				cancel()
				end := time.Now()
				per[i] = append(per[i], done{end, end.Sub(began), err})
			}
		})
	}
	timer := time.NewTimer(d)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	stop.Store(true)
	wg.Wait()

	s := step{clients: n}
	var lats []time.Duration
	var sum time.Duration // of every query that ended in the span, answered or not
	for _, calls := range per {
		for _, c := range calls {
			if c.end.Before(from) || c.end.After(to) {
				continue
			}
			sum += c.lat
			if c.err != nil {
				s.failed++
				continue
			}
			lats = append(lats, c.lat)
		}
	}
	slices.Sort(lats)
	s.p50, s.p99 = percentile(lats, 0.50), percentile(lats, 0.99)
	// The throughput by Little's law: n clients that never pause complete
	// n / (mean latency) queries per second, of which the answered share
	// counts. Counting the answers in the span instead is off by up to n
	// answers, which at high concurrency and in a short step is a lot.
	if ended := len(lats) + s.failed; ended > 0 && sum > 0 {
		mean := sum.Seconds() / float64(ended)
		s.rate = float64(n) / mean * float64(len(lats)) / float64(ended)
	}
	return s
}

// kneeOf returns the capacity and the knee of a sweep. The capacity is the
// level of the plateau: the median rate of the steps from the first that
// reaches 90% of the best rate on (the best alone would be the luckiest
// step of a noisy sweep). The knee is the fewest clients whose rate
// reaches 95% of the capacity. Without a step that measured anything, both
// are 0.
func kneeOf(steps []step) (capacity float64, knee int) {
	best := 0.0
	for _, s := range steps {
		best = max(best, s.rate)
	}
	if best <= 0 {
		return 0, 0
	}
	var plateau []float64
	for _, s := range steps {
		if len(plateau) > 0 || s.rate >= 0.9*best {
			plateau = append(plateau, s.rate)
		}
	}
	slices.Sort(plateau)
	if n := len(plateau); n%2 == 1 {
		capacity = plateau[n/2]
	} else {
		capacity = (plateau[n/2-1] + plateau[n/2]) / 2
	}
	for _, s := range steps {
		if s.rate >= 0.95*capacity {
			return capacity, s.clients
		}
	}
	return capacity, 0 // unreachable: the best step reaches the median
}

// percentile returns the q-quantile of sorted (nearest rank), 0 if empty.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
