package main

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// offer is the open-loop load: it starts requests at random instants, rate
// per second on average (a Poisson process), for duration, each on a
// goroutine of its own, whether or not the earlier ones have been answered.
// That is how load reaches a server from many independent users: nobody
// waits for somebody else's answer before asking.
//
// offer starts at most twice the expected number of requests and none once
// ctx is done. It returns when duration has passed (or ctx is done) and
// every request it started has ended.
func offer(ctx context.Context, rate float64, duration time.Duration, rng *rand.Rand, send func(context.Context)) {
	maxRequests := int(2*rate*duration.Seconds()) + 100

	var requests sync.WaitGroup
	defer requests.Wait()

	timer := time.NewTimer(0)
	defer timer.Stop()
	start := time.Now()
	var at time.Duration // when the next request starts, from start
	for range maxRequests {
		at = min(at+time.Duration(rng.ExpFloat64()/rate*float64(time.Second)), duration)
		if wait := at - time.Since(start); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			}
		}
		if at == duration || ctx.Err() != nil {
			return
		}
		requests.Go(func() { send(ctx) })
	}
}
