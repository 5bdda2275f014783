package r4cprometheus_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"

	"github.com/resilience4cata/r4c/events"
	r4cprometheus "github.com/resilience4cata/r4c/metrics/prometheus"
)

// BenchmarkEvent measures what the Collector adds to a published rejection:
// the bus delivering a (pre-boxed) event to its listener.
func BenchmarkEvent(b *testing.B) {
	clk, reg := newRegistry(b)
	build(b, clk, reg)
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()
	var e events.Event = events.CallRejected{Policy: "adaptivelimit", Instance: "search"}
	bus := reg.Events()
	b.ReportAllocs()
	for b.Loop() {
		bus.Publish(e)
	}
}

// BenchmarkScrape measures a scrape of the scenario's seven instances.
func BenchmarkScrape(b *testing.B) {
	clk, reg := newRegistry(b)
	p := build(b, clk, reg)
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()
	p.Run(b)
	pr := prometheus.NewRegistry()
	pr.MustRegister(c)
	b.ReportAllocs()
	for b.Loop() {
		mfs, err := pr.Gather()
		if err != nil || len(mfs) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkRejectedCall measures a call rejected by a full adaptive limit,
// without and with a Collector listening: the difference is what the
// policy's event and the listener cost.
func BenchmarkRejectedCall(b *testing.B) {
	for _, observed := range []bool{false, true} {
		name := "unobserved"
		if observed {
			name = "observed"
		}
		b.Run(name, func(b *testing.B) {
			clk, reg := newRegistry(b)
			p := build(b, clk, reg)
			if observed {
				c := r4cprometheus.NewCollector(reg)
				defer c.Close()
			}
			release := holdSlot(b, p.Search)
			defer release()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Search.Execute(ok); err == nil {
					b.Fatal("admitted")
				}
			}
		})
	}
}

// BenchmarkAdmittedCall measures an admitted call through the scenario's
// adaptive limit without and with a Collector attached: the difference is
// what the call metrics cost a call (the observer check, the series lookup,
// a counter and a histogram).
func BenchmarkAdmittedCall(b *testing.B) {
	for _, observed := range []bool{false, true} {
		name := "without"
		if observed {
			name = "with_collector"
		}
		b.Run(name, func(b *testing.B) {
			reg, err := r4c.NewRegistry() // the real clock, as in production
			if err != nil {
				b.Fatal(err)
			}
			p, err := pipeline.NewBuilder[string](reg, "search").AdaptiveLimit(nil).Build()
			if err != nil {
				b.Fatal(err)
			}
			if observed {
				c := r4cprometheus.NewCollector(reg)
				defer c.Close()
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Execute(ok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
