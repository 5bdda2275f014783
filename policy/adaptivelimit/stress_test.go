package adaptivelimit_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// TestStress hammers one limiter from many goroutines on the real clock,
// with short windows so that recomputes race with calls, and checks that
// every slot comes back and the counters add up.
func TestStress(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  adaptivelimit.Config
	}{
		{"gradient2", adaptivelimit.Config{InitialLimit: 4, MaxLimit: 16, Window: time.Millisecond, MinWindowSamples: 1}},
		{"aimd", adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 4, MaxLimit: 16,
			Window: time.Millisecond, MinWindowSamples: 1}},
		{"vegas", adaptivelimit.Config{Algorithm: adaptivelimit.Vegas, InitialLimit: 4, MaxLimit: 16,
			Window: time.Millisecond, MinWindowSamples: 1, ProbeMultiplier: 1}},
		{"little", adaptivelimit.Config{Algorithm: adaptivelimit.Little, InitialLimit: 4, MaxLimit: 16,
			Window: time.Millisecond, MinWindowSamples: 1}},
		{"maxWait", adaptivelimit.Config{Algorithm: adaptivelimit.AIMD, InitialLimit: 2, MaxLimit: 6,
			Window: time.Millisecond, MinWindowSamples: 1, MaxWait: 200 * time.Microsecond}},
	} {
		t.Run(tc.name, func(t *testing.T) { stress(t, tc.cfg) })
	}
}

func stress(t *testing.T, cfg adaptivelimit.Config) {
	bus := &events.Bus{}
	var published, changes atomic.Int64
	stop := bus.Subscribe(func(e events.Event) {
		switch e.(type) {
		case events.CallRejected:
			published.Add(1)
		case events.LimitChanged:
			changes.Add(1)
		}
	})
	defer stop()
	l, err := adaptivelimit.New(cfg, policy.Env{Events: bus, Instance: "stress"})
	require.NoError(t, err)
	h := l.Handle()
	chain := policy.NewChain(adaptivelimit.Stage[int](l))

	goroutines, iterations := 16, 3000
	if raceEnabled || testing.Short() {
		iterations = 400
	}
	var drops, rejections, overLimit atomic.Int64
	var wg sync.WaitGroup
	done := make(chan struct{})
	go func() { // a reader, as a metrics scraper would be
		for {
			select {
			case <-done:
				return
			default:
			}
			s := h.Snapshot()
			if s.Limit < s.MinLimit || s.Limit > s.MaxLimit {
				overLimit.Add(1)
			}
		}
	}()
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range iterations {
				ctx, cancel := context.WithCancel(context.Background())
				if i%7 == 0 {
					ctx = adaptivelimit.WithPriority(ctx, adaptivelimit.PriorityLow)
				}
				kind := (g + i) % 8
				called := false
				func() {
					defer func() {
						if r := recover(); r != nil && r != "boom" {
							panic(r)
						}
					}()
					_, err := chain.Next(func(ctx context.Context) (int, error) {
						called = true
						switch kind {
						case 1:
							return 0, fmt.Errorf("x: %w", policy.ErrCallTimeout)
						case 2:
							return 0, errPlain
						case 3:
							cancel()
							return 0, ctx.Err()
						case 4:
							panic("boom")
						}
						return i, nil
					}, nil).Call(ctx)
					if !called {
						if errors.Is(err, adaptivelimit.ErrLimitExceeded) {
							rejections.Add(1)
						} else if !errors.Is(err, context.Canceled) {
							t.Errorf("unexpected error %v", err)
						}
					}
				}()
				cancel()
				if called && kind == 1 {
					drops.Add(1)
				}
				switch kind {
				case 5: // standalone
					if p, ok := l.TryAcquire(); ok {
						l.Release(p, adaptivelimit.OutcomeDrop)
						drops.Add(1)
					} else {
						rejections.Add(1)
					}
				case 6: // asynchronous, completed on another goroutine
					fut := chain.AsyncNext(func(context.Context) *futureInt {
						pr := newIntPromise()
						go pr.Complete(i)
						return pr.Future()
					}).Call(context.Background())
					if _, err := fut.Get(context.Background()); errors.Is(err, adaptivelimit.ErrLimitExceeded) {
						rejections.Add(1)
					}
				case 7: // asynchronous, cancelled
					pr := newIntPromise()
					started := false
					fut := chain.AsyncNext(func(context.Context) *futureInt {
						started = true
						return pr.Future()
					}).Call(context.Background())
					go fut.Cancel()
					if _, err := fut.Get(context.Background()); errors.Is(err, adaptivelimit.ErrLimitExceeded) {
						rejections.Add(1)
					}
					if started {
						<-pr.Future().Done() // cancelled through the outer future
					}
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	s := h.Snapshot()
	assert.Zero(t, s.InFlight, "every slot is returned")
	assert.Zero(t, s.Waiting)
	assert.Equal(t, drops.Load(), s.Drops)
	assert.Equal(t, rejections.Load(), s.Rejections)
	assert.Equal(t, rejections.Load(), published.Load())
	assert.Zero(t, overLimit.Load())
	assert.Positive(t, s.Windows)
	t.Logf("windows %d, limit changes %d, rejections %d, drops %d, limit %d",
		s.Windows, changes.Load(), s.Rejections, s.Drops, s.Limit)
}
