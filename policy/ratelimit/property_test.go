package ratelimit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestPropertyConformance drives a limiter through random sequences of
// Allow, waits that complete, waits cancelled half-way and clock moves. It
// checks that the permits granted conform to the limit (in any span of
// time, at most Burst + span/interval), that a cancelled wait leaves the
// limiter as it found it, that a call is refused only when no permit is
// free, and that after a quiet spell all Burst permits are back.
func TestPropertyConformance(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		limit := rapid.IntRange(1, 5).Draw(rt, "limit")
		burst := rapid.IntRange(1, 4).Draw(rt, "burst")
		period := time.Second
		interval := period / time.Duration(limit)
		clk := clocktest.NewManualClock()
		bus := &events.Bus{}
		panicListener := false // a listener of the rejections panics in this step
		defer bus.Subscribe(func(events.Event) {
			if panicListener {
				panic("listener")
			}
		})()
		l, err := ratelimit.New(ratelimit.Config{Limit: limit, Period: period, Burst: burst, MaxWait: time.Hour}, policy.Env{Clock: clk, Events: bus})
		require.NoError(rt, err)
		h := ratelimit.NewHandle(l)

		var grants []time.Duration // clock offsets at which permits were granted
		var rejections int64
		now := func() time.Duration { return clk.Now().Sub(clocktest.Start) }
		check := func() {
			for i := range grants {
				for j := i; j < len(grants); j++ {
					span := grants[j] - grants[i]
					require.LessOrEqual(rt, j-i+1, burst+int(span/interval), "grants %v", grants)
				}
			}
			require.Equal(rt, rejections, h.Snapshot().Rejections)
			require.Zero(rt, clk.Pending())
		}

		rt.Repeat(map[string]func(*rapid.T){
			"allow": func(rt *rapid.T) {
				free := l.Available()
				panicListener = rapid.Bool().Draw(rt, "panicListener")
				var ok bool
				p := func() (p any) {
					defer func() { p = recover() }()
					ok = l.Allow()
					return nil
				}()
				if p != nil {
					require.Equal(rt, "listener", p)
					require.True(rt, panicListener)
				}
				panicListener = false
				if ok {
					require.Positive(rt, free)
					grants = append(grants, now())
				} else {
					require.Zero(rt, free, "refused although a permit was free")
					rejections++
				}
				check()
			},
			"twoWaitersFirstCancelled": func(rt *rapid.T) {
				// The first waiter's permit is not the last reserved when it
				// gives up: it is lost, and the second waiter's time stands.
				for l.RetryAfter() == 0 {
					require.True(rt, l.Allow())
					grants = append(grants, now())
				}
				ctx, cancel := context.WithCancel(context.Background())
				first, second := make(chan error, 1), make(chan error, 1)
				go func() { first <- l.Wait(ctx) }()
				blockUntil(rt, clk, 1)
				go func() { second <- l.Wait(context.Background()) }()
				blockUntil(rt, clk, 2)
				after := l.RetryAfter()
				cancel()
				require.ErrorIs(rt, recv(rt, first), context.Canceled)
				require.Equal(rt, after, l.RetryAfter(), "a permit reserved before the last one does not come back")
				// The second waiter's permit comes one interval before the
				// next free one: advance exactly to it.
				clk.Advance(after - interval)
				require.NoError(rt, recv(rt, second))
				grants = append(grants, now())
				check()
			},
			"advance": func(rt *rapid.T) {
				clk.Advance(time.Duration(rapid.Int64Range(0, int64(2*interval)).Draw(rt, "advance")))
				check()
			},
			"waitAndGet": func(rt *rapid.T) {
				wait := l.RetryAfter()
				res := make(chan error, 1)
				go func() { res <- l.Wait(context.Background()) }()
				if wait > 0 {
					blockUntil(rt, clk, 1)
					clk.Advance(wait)
				}
				require.NoError(rt, recv(rt, res))
				grants = append(grants, now())
				check()
			},
			"waitAndCancel": func(rt *rapid.T) {
				wait := l.RetryAfter()
				if wait == 0 {
					rt.Skip("a permit is free: nothing to wait for")
				}
				avail := l.Available()
				ctx, cancel := context.WithCancel(context.Background())
				res := make(chan error, 1)
				go func() { res <- l.Wait(ctx) }()
				blockUntil(rt, clk, 1)
				part := rapid.Int64Range(0, int64(wait)-1).Draw(rt, "part")
				clk.Advance(time.Duration(part))
				cancel()
				require.ErrorIs(rt, recv(rt, res), context.Canceled)
				require.Equal(rt, wait-time.Duration(part), l.RetryAfter(), "the permit came back")
				require.Equal(rt, avail, l.Available())
				check()
			},
		})

		clk.Advance(time.Duration(burst+1) * interval)
		require.Equal(rt, burst, l.Available(), "every permit came back")
		for range burst {
			require.True(rt, l.Allow())
		}
		require.False(rt, l.Allow())
	})
}

// TestConcurrentAllow: many goroutines take permits at one instant; the
// CAS lets exactly Burst through.
func TestConcurrentAllow(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		burst := rapid.IntRange(1, 50).Draw(rt, "burst")
		workers := rapid.IntRange(1, 8).Draw(rt, "workers")
		clk := clocktest.NewManualClock()
		l, err := ratelimit.New(ratelimit.Config{Limit: 1, Period: time.Hour, Burst: burst}, policy.Env{Clock: clk})
		require.NoError(rt, err)
		var admitted atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 2 * burst {
					if l.Allow() {
						admitted.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		require.Equal(rt, int64(burst), admitted.Load())
		require.Equal(rt, int64(workers*2*burst-burst), ratelimit.NewHandle(l).Snapshot().Rejections)
	})
}
