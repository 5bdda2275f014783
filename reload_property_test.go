package r4c_test

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// Random reloads, some of them bad, while goroutines make calls through a
// bulkhead and an adaptive limit: a bad reload changes nothing, no slot is
// lost or counted twice, and once the calls in flight at the last reload
// have ended, no more calls run at once than the last limit allows.
func TestRandomReloadsUnderConcurrentCalls(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		props := map[string]string{
			"instances.al.adaptiveLimit.algorithm":    "aimd",
			"instances.al.adaptiveLimit.window":       "1h", // the manual clock never ends a window
			"instances.al.adaptiveLimit.initialLimit": "4",
			"instances.al.adaptiveLimit.minLimit":     "1",
			"instances.al.adaptiveLimit.maxLimit":     "4",
			"instances.bh.bulkhead.maxConcurrent":     "4",
		}
		reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()), r4c.WithProperties(props))
		require.NoError(rt, err)
		bhP, err := pipeline.NewBuilder[int](reg, "bh").Bulkhead(nil).Build()
		require.NoError(rt, err)
		alP, err := pipeline.NewBuilder[int](reg, "al").AdaptiveLimit(nil).Build()
		require.NoError(rt, err)
		bh, _ := reg.Bulkhead("bh")
		al, _ := reg.AdaptiveLimit("al")

		type gauge struct {
			active  atomic.Int64
			limit   atomic.Int64 // the limit once settled; 0 before
			exceeds atomic.Int64
		}
		var gb, ga gauge
		call := func(g *gauge) func(context.Context) (int, error) {
			return func(context.Context) (int, error) {
				// The limit first: read after the count, it could be the
				// one stored after a drain that this call's own slot, and
				// those counted with it, outlived.
				l := g.limit.Load()
				if n := g.active.Add(1); l > 0 && n > l {
					g.exceeds.Add(1)
				}
				runtime.Gosched()
				g.active.Add(-1)
				return 0, nil
			}
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if i%2 == 0 {
						_, _ = bhP.ExecuteContext(context.Background(), call(&gb))
					} else {
						_, _ = alP.ExecuteContext(context.Background(), call(&ga))
					}
				}
			}()
		}

		size, lo, hi := 4, 1, 4
		steps := rapid.IntRange(1, 8).Draw(rt, "reloads")
		for s := range steps {
			bad := rapid.IntRange(0, 4).Draw(rt, "bad"+strconv.Itoa(s)) == 0
			nSize := rapid.IntRange(1, 8).Draw(rt, "size")
			nLo := rapid.IntRange(1, 6).Draw(rt, "min")
			nHi := nLo + rapid.IntRange(0, 4).Draw(rt, "max-min")
			props["instances.bh.bulkhead.maxConcurrent"] = strconv.Itoa(nSize)
			props["instances.al.adaptiveLimit.minLimit"] = strconv.Itoa(nLo)
			props["instances.al.adaptiveLimit.maxLimit"] = strconv.Itoa(nHi)
			props["instances.al.adaptiveLimit.initialLimit"] = strconv.Itoa(nLo)
			if bad {
				props["instances.bh.bulkhead.maxConcurrent"] = "0"
				require.Error(rt, reg.Reload())
				require.Equal(rt, size, bh.MaxConcurrent(), "a bad reload changed the bulkhead")
				require.Equal(rt, hi, al.Config().MaxLimit, "a bad reload changed the limit")
				require.Equal(rt, lo, al.Config().MinLimit)
				continue
			}
			require.NoError(rt, reg.Reload())
			size, lo, hi = nSize, nLo, nHi
			require.Equal(rt, size, bh.MaxConcurrent())
			require.Equal(rt, hi, al.Config().MaxLimit)
			require.GreaterOrEqual(rt, al.Limit(), lo)
			require.LessOrEqual(rt, al.Limit(), hi)
		}
		// Let the calls in flight at the last reload drain, then hold the
		// last limits to account.
		limitA := int64(al.Limit())
		drain := func(inFlight func() int, limit int64) {
			for i := 0; int64(inFlight()) > limit; i++ {
				if i > 10_000_000 {
					rt.Fatalf("%d calls still in flight, limit %d", inFlight(), limit)
				}
				runtime.Gosched()
			}
		}
		drain(bh.InFlight, int64(size))
		gb.limit.Store(int64(size))
		drain(al.InFlight, limitA)
		ga.limit.Store(limitA)
		for range 200 {
			runtime.Gosched()
		}
		close(stop)
		wg.Wait()
		require.Zero(rt, gb.exceeds.Load(), "more calls than the bulkhead's last size after the drain")
		require.Zero(rt, ga.exceeds.Load(), "more calls than the last limit after the drain")

		// No slot lost or counted twice.
		require.Equal(rt, 0, bh.InFlight())
		require.Equal(rt, 0, al.InFlight())
		for range size {
			require.True(rt, bh.Bulkhead().TryAcquire())
		}
		require.False(rt, bh.Bulkhead().TryAcquire())
		for range size {
			bh.Bulkhead().Release()
		}
		var ps []adaptivelimit.Permit
		for range limitA {
			p, ok := al.Limiter().TryAcquire()
			require.True(rt, ok)
			ps = append(ps, p)
		}
		_, ok := al.Limiter().TryAcquire()
		require.False(rt, ok)
		for _, p := range ps {
			al.Limiter().Release(p, adaptivelimit.OutcomeIgnore)
		}
	})
}
