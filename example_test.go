package r4c_test

import (
	"context"
	"fmt"
	"log"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/retry"
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
		AdaptiveLimit(func(c *adaptivelimit.Config) {
			c.Algorithm = adaptivelimit.Little // recommended when the capacity is unknown
			c.InitialLimit, c.MaxLimit = 10, 100
		}).
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

// A production start: code gives the defaults and named configurations, a
// properties file and the environment tune them, and once every pipeline is
// built, CheckUnusedKeys catches an instance key with a typo. The package
// documentation's quick start is this example (TestPackageDocQuickStart).
func Example_production() {
	reg, err := r4c.NewRegistry(
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) {
			c.Algorithm = adaptivelimit.Little // finds the capacity on any shape (docs/adaptation.md)
			c.MaxLimit = 500
		}),
		r4c.WithRetryConfig("idempotent", func(c *retry.Config) {
			c.MaxAttempts = 3
			c.AbortOn = []error{adaptivelimit.ErrLimitExceeded} // a full limit fails fast
		}),
		// The file and the environment tune the code without a rebuild:
		// R4C_INSTANCES_ORDERS_ADAPTIVELIMIT_MAXLIMIT=300 wins over the file.
		r4c.WithPropertiesFile("testdata/r4c.properties"),
		r4c.WithEnvironment(),
	)
	if err != nil {
		log.Fatal(err) // a *r4c.ConfigError; its message starts with its R4C code
	}
	orders, err := pipeline.NewBuilder[string](reg, "orders").
		Retry(func(c *retry.Config) { c.BaseConfig = "idempotent" }).
		AdaptiveLimit(nil).
		Timeout(nil).
		Build()
	if err != nil {
		log.Fatal(err)
	}
	// Every pipeline is built: an instance key that matched none is a typo.
	if err := reg.CheckUnusedKeys(); err != nil {
		log.Fatal(err)
	}

	s, err := orders.ExecuteContext(context.Background(), func(ctx context.Context) (string, error) {
		return "placed", nil // the call to the dependency, honouring ctx
	})
	fmt.Println(s, err)
	t, _ := reg.Timeout("orders")
	r, _ := reg.Retry("orders")
	fmt.Println(t.Config().Timeout, r.Config().Wait)
	// Output:
	// placed <nil>
	// 2s 200ms
}
