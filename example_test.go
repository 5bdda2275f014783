package r4c_test

import (
	"fmt"
	"log"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// A registry with a manual clock, defaults for every adaptive limit, and a
// pipeline with one.
func ExampleNewRegistry() {
	clk := clocktest.NewManualClock() // tests only; omit WithClock in production
	reg, err := r4c.NewRegistry(
		r4c.WithClock(clk),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 }),
	)
	if err != nil {
		log.Fatal(err) // a *r4c.ConfigError with its R4C code
	}
	p, err := pipeline.NewBuilder[string](reg, "search").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 10; c.MaxLimit = 100 }).
		Build()
	if err != nil {
		log.Fatal(err)
	}
	s, err := p.Execute(func() (string, error) { return "results", nil })
	fmt.Println(s, err)

	h, _ := reg.AdaptiveLimit("search")
	fmt.Println("limit", h.Limit(), "in flight", h.InFlight())
	// Output:
	// results <nil>
	// limit 10 in flight 0
}

// Configuration from outside, in the flat keys of docs/configuration.md, and
// the coded error a mistake gets.
func ExampleWithProperties() {
	_, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{
		"defaults.adaptiveLimit.maxLimt": "100",
	}))
	fmt.Println(err)

	reg, _ := r4c.NewRegistry(r4c.WithProperties(map[string]string{
		"defaults.adaptiveLimit.maxLimit":            "100",
		"configs.backend.adaptiveLimit.algorithm":    "aimd",
		"configs.backend.adaptiveLimit.backoffRatio": "0.8",
	}))
	pipeline.NewBuilder[string](reg, "orders").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.BaseConfig = "backend" }).
		Build()
	h, _ := reg.AdaptiveLimit("orders")
	cfg := h.Config()
	fmt.Println(cfg.Algorithm, cfg.BackoffRatio, cfg.MaxLimit)
	// Output:
	// R4C-REG-002 defaults.adaptiveLimit.maxLimt=100: adaptiveLimit has no key maxLimt (did you mean "maxLimit"?)
	// aimd 0.8 100
}
