package main

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// offer is the open-loop load: it starts queries at random instants, rate
// per second on average (a Poisson process), for d, each on a goroutine of
// its own, whether or not the earlier ones have been answered, as many
// independent users would.
//
// offer starts at most twice the expected number of queries (plus 100) and
// none once ctx is done. It returns when d has passed (or ctx is done) and
// every query it started has ended.
func offer(ctx context.Context, rate float64, d time.Duration, rng *rand.Rand, send func()) {
	maxQueries := int(2*rate*d.Seconds()) + 100

	var queries sync.WaitGroup
	defer queries.Wait()

	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	start := time.Now()
	var at time.Duration // when the next query is due, from start
	for range maxQueries {
		at += time.Duration(rng.ExpFloat64() / rate * float64(time.Second))
		if at >= d {
			return
		}
		if wait := at - time.Since(start); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			}
		}
		if ctx.Err() != nil {
			return
		}
		queries.Go(send)
	}
}
