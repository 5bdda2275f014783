package r4cfailsafe_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	fsadaptive "github.com/failsafe-go/failsafe-go/adaptivelimiter"
	fsbulkhead "github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/ratelimiter"
	"github.com/failsafe-go/failsafe-go/retrypolicy"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/r4cfailsafe"
)

// The same settings as the peer benchmarks in bench/.
const (
	benchMinLimit     = 4
	benchInitialLimit = 20
	benchMaxLimit     = 200
	benchBulkhead     = 100
	benchHugeRate     = 1_000_000_000
)

// work is the call every benchmark protects, through a variable so that it
// is not inlined away.
var work = func() (int, error) { return 1, nil }

var benchSink atomic.Int64

func runGet(b *testing.B, e failsafe.Executor[int]) {
	b.ReportAllocs()
	var acc int
	for b.Loop() {
		v, err := e.Get(work)
		if err != nil {
			b.Fatal(err)
		}
		acc += v
	}
	benchSink.Add(int64(acc))
}

func runPipeline(b *testing.B, p *pipeline.Pipeline[int]) {
	b.ReportAllocs()
	var acc int
	for b.Loop() {
		v, err := p.Execute(work)
		if err != nil {
			b.Fatal(err)
		}
		acc += v
	}
	benchSink.Add(int64(acc))
}

func benchRegistry(b *testing.B) *r4c.Registry {
	reg, err := r4c.NewRegistry() // the real clock, as in production
	if err != nil {
		b.Fatal(err)
	}
	return reg
}

func build(b *testing.B, pb *pipeline.Builder[int]) *pipeline.Pipeline[int] {
	p, err := pb.Build()
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// must returns v, or panics with a setup error.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func alCfg(c *adaptivelimit.Config) {
	c.MinLimit, c.InitialLimit, c.MaxLimit = benchMinLimit, benchInitialLimit, benchMaxLimit
}

func rlCfg(c *ratelimit.Config) { c.Limit, c.Burst = benchHugeRate, benchHugeRate }

// BenchmarkR4CInFailsafe: an admitted call through a failsafe-go executor
// of one policy. lib=r4cfailsafe is r4c's policy through the seam,
// lib=failsafe-go failsafe-go's own policy of the same kind, lib=r4c the
// r4c pipeline of that one policy (no failsafe-go at all); policy=none is
// failsafe-go's executor with no policy (the floor of any executor).
func BenchmarkR4CInFailsafe(b *testing.B) {
	b.Run("policy=none/lib=failsafe-go", func(b *testing.B) { runGet(b, failsafe.With[int]()) })

	b.Run("policy=adaptivelimit/lib=r4cfailsafe", func(b *testing.B) {
		p := must(r4cfailsafe.NewAdaptiveLimit[int](benchRegistry(b), "bench", alCfg))
		runGet(b, failsafe.With[int](p))
	})
	b.Run("policy=adaptivelimit/lib=failsafe-go", func(b *testing.B) {
		runGet(b, failsafe.With[int](fsadaptive.NewBuilder[int]().WithLimits(benchMinLimit, benchMaxLimit, benchInitialLimit).Build()))
	})
	b.Run("policy=adaptivelimit/lib=r4c", func(b *testing.B) {
		runPipeline(b, build(b, pipeline.NewBuilder[int](benchRegistry(b), "bench").AdaptiveLimit(alCfg)))
	})

	b.Run("policy=bulkhead/lib=r4cfailsafe", func(b *testing.B) {
		p := must(r4cfailsafe.NewBulkhead[int](benchRegistry(b), "bench", func(c *bulkhead.Config) { c.MaxConcurrent = benchBulkhead }))
		runGet(b, failsafe.With[int](p))
	})
	b.Run("policy=bulkhead/lib=failsafe-go", func(b *testing.B) {
		runGet(b, failsafe.With[int](fsbulkhead.New[int](benchBulkhead)))
	})
	b.Run("policy=bulkhead/lib=r4c", func(b *testing.B) {
		runPipeline(b, build(b, pipeline.NewBuilder[int](benchRegistry(b), "bench").Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = benchBulkhead })))
	})

	b.Run("policy=breaker/lib=r4cfailsafe", func(b *testing.B) {
		p := must(r4cfailsafe.NewBreaker[int](benchRegistry(b), "bench", nil))
		runGet(b, failsafe.With[int](p))
	})
	b.Run("policy=breaker/lib=failsafe-go", func(b *testing.B) {
		runGet(b, failsafe.With[int](circuitbreaker.NewWithDefaults[int]()))
	})
	b.Run("policy=breaker/lib=r4c", func(b *testing.B) {
		runPipeline(b, build(b, pipeline.NewBuilder[int](benchRegistry(b), "bench").Breaker(func(*breaker.Config) {})))
	})

	b.Run("policy=ratelimit/lib=r4cfailsafe", func(b *testing.B) {
		p := must(r4cfailsafe.NewRateLimit[int](benchRegistry(b), "bench", rlCfg))
		runGet(b, failsafe.With[int](p))
	})
	b.Run("policy=ratelimit/lib=failsafe-go", func(b *testing.B) {
		runGet(b, failsafe.With[int](ratelimiter.NewBursty[int](benchHugeRate, time.Second)))
	})
	b.Run("policy=ratelimit/lib=r4c", func(b *testing.B) {
		runPipeline(b, build(b, pipeline.NewBuilder[int](benchRegistry(b), "bench").RateLimit(rlCfg)))
	})
}

// BenchmarkR4CInFailsafeRejected: a call rejected by a full adaptive limit
// (every slot held), through the seam and through failsafe-go's own.
func BenchmarkR4CInFailsafeRejected(b *testing.B) {
	reject := func(b *testing.B, e failsafe.Executor[int]) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.Get(work); err == nil {
				b.Fatal("admitted")
			}
		}
	}
	b.Run("lib=r4cfailsafe", func(b *testing.B) {
		reg := benchRegistry(b)
		p := must(r4cfailsafe.NewAdaptiveLimit[int](reg, "bench", func(c *adaptivelimit.Config) { c.InitialLimit, c.MinLimit = 1, 1 }))
		h, _ := reg.AdaptiveLimit("bench")
		held, err := h.Limiter().Acquire(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		defer h.Limiter().Release(held, adaptivelimit.OutcomeIgnore)
		reject(b, failsafe.With[int](p))
	})
	b.Run("lib=failsafe-go", func(b *testing.B) {
		l := fsadaptive.NewBuilder[int]().WithLimits(1, 1, 1).Build()
		held, ok := l.TryAcquirePermit()
		if !ok {
			b.Fatal("no permit")
		}
		defer held.Drop()
		reject(b, failsafe.With[int](l))
	})
}

// BenchmarkFailsafeInR4C: an admitted call through an r4c pipeline whose
// only policy is failsafe-go's, wrapped (lib=wrapped), next to the same
// failsafe-go policy in its own executor (lib=failsafe-go). policy=none
// wraps an executor of no policy: the seam's own cost over the pipeline.
func BenchmarkFailsafeInR4C(b *testing.B) {
	wrapped := func(b *testing.B, ps ...failsafe.Policy[int]) {
		runPipeline(b, build(b, pipeline.NewBuilder[int](benchRegistry(b), "bench").Use(r4cfailsafe.Wrap("bench", ps...))))
	}
	b.Run("policy=none/lib=wrapped", func(b *testing.B) { wrapped(b) })
	b.Run("policy=none/lib=failsafe-go", func(b *testing.B) { runGet(b, failsafe.With[int]()) })
	b.Run("policy=retry/lib=wrapped", func(b *testing.B) { wrapped(b, retrypolicy.NewWithDefaults[int]()) })
	b.Run("policy=retry/lib=failsafe-go", func(b *testing.B) { runGet(b, failsafe.With[int](retrypolicy.NewWithDefaults[int]())) })
	b.Run("policy=breaker/lib=wrapped", func(b *testing.B) { wrapped(b, circuitbreaker.NewWithDefaults[int]()) })
	b.Run("policy=breaker/lib=failsafe-go", func(b *testing.B) {
		runGet(b, failsafe.With[int](circuitbreaker.NewWithDefaults[int]()))
	})
	b.Run("policy=bulkhead/lib=wrapped", func(b *testing.B) { wrapped(b, fsbulkhead.New[int](benchBulkhead)) })
	b.Run("policy=bulkhead/lib=failsafe-go", func(b *testing.B) { runGet(b, failsafe.With[int](fsbulkhead.New[int](benchBulkhead))) })
}
