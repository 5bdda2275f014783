package r4cotel_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/resilience4cata/r4c/events"
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
