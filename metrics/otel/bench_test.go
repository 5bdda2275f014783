package r4cotel_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/pipeline"
)

// BenchmarkEvent measures what the instruments add to a published
// rejection: the bus delivering a (pre-boxed) event to their listener.
func BenchmarkEvent(b *testing.B) {
	clk, reg := newRegistry(b)
	build(b, clk, reg)
	_, m := newMetrics(b, reg)
	defer m.Close()
	var e events.Event = events.CallRejected{Policy: "adaptivelimit", Instance: "search"}
	bus := reg.Events()
	b.ReportAllocs()
	for b.Loop() {
		bus.Publish(e)
	}
}

// BenchmarkCollect measures a collection of the scenario's seven instances.
func BenchmarkCollect(b *testing.B) {
	clk, reg := newRegistry(b)
	p := build(b, clk, reg)
	mr, m := newMetrics(b, reg)
	defer m.Close()
	p.Run(b)
	var rm metricdata.ResourceMetrics
	b.ReportAllocs()
	for b.Loop() {
		if err := mr.Collect(context.Background(), &rm); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdmittedCall measures an admitted call through an adaptive limit
// on the real clock without and with the instruments registered on the
// SDK: the difference is what the call metrics cost a call.
func BenchmarkAdmittedCall(b *testing.B) {
	for _, observed := range []bool{false, true} {
		name := "without"
		if observed {
			name = "with_metrics"
		}
		b.Run(name, func(b *testing.B) {
			reg, err := r4c.NewRegistry()
			if err != nil {
				b.Fatal(err)
			}
			p, err := pipeline.NewBuilder[string](reg, "search").AdaptiveLimit(nil).Build()
			if err != nil {
				b.Fatal(err)
			}
			if observed {
				_, m := newMetrics(b, reg)
				defer m.Close()
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
