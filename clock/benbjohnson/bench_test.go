package benbjohnson_test

import (
	"testing"

	"github.com/benbjohnson/clock"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clock/benbjohnson"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
)

var sink int64

// The cost of a reading: r4c's own clock, the adapter over the real
// clock, and the adapter over a mock (a mutex).
func BenchmarkNanotime(b *testing.B) {
	for _, c := range []struct {
		name string
		clk  policy.Clock
	}{
		{"System", policy.System},
		{"Adapter/Real", benbjohnson.New(clock.New())},
		{"Adapter/Mock", benbjohnson.New(clock.NewMock())},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink += c.clk.Nanotime()
			}
		})
	}
}

// An admitted call through a one-policy adaptive-limit pipeline (two
// readings), on each clock.
func BenchmarkAdaptiveLimitCall(b *testing.B) {
	for _, c := range []struct {
		name string
		clk  policy.Clock
	}{
		{"System", policy.System},
		{"Adapter/Real", benbjohnson.New(clock.New())},
		{"Adapter/Mock", benbjohnson.New(clock.NewMock())},
	} {
		b.Run(c.name, func(b *testing.B) {
			reg, err := r4c.NewRegistry(r4c.WithClock(c.clk))
			if err != nil {
				b.Fatal(err)
			}
			p, err := pipeline.NewBuilder[int](reg, "bench").AdaptiveLimit(nil).Build()
			if err != nil {
				b.Fatal(err)
			}
			fn := func() (int, error) { return 1, nil }
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Execute(fn); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
