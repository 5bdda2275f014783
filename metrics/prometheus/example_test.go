package r4cprometheus_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/future"
	r4cprometheus "github.com/resilience4cata/r4c/metrics/prometheus"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// A Collector registered with a Prometheus registry: the limit and the
// calls in flight are read at scrape time, the rejection is counted from its
// event.
func ExampleNewCollector() {
	clk := clocktest.NewManualClock() // tests only; omit WithClock in production
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	if err != nil {
		log.Fatal(err)
	}
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()
	promReg := prometheus.NewRegistry()
	promReg.MustRegister(c)

	p, err := pipeline.NewBuilder[string](reg, "search").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 1 }).
		Build()
	if err != nil {
		log.Fatal(err)
	}
	// One asynchronous call holds the only slot; the next is rejected.
	pending := future.NewPromise[string]()
	f := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[string] { return pending.Future() })
	_, err = p.Execute(func() (string, error) { return "results", nil })
	fmt.Println(err)

	out, err := testutil.GatherAndFormat(promReg, expfmt.TypeTextPlain,
		"r4c_adaptivelimit_limit", "r4c_adaptivelimit_concurrent_calls", "r4c_calls_rejected_total")
	if err != nil {
		log.Fatal(err)
	}
	os.Stdout.Write(out)

	pending.Complete("done")
	_, _ = f.Get(context.Background())
	// Output:
	// r4c: adaptive limit search exceeded
	// # HELP r4c_adaptivelimit_concurrent_calls Calls holding a slot of the adaptive limit.
	// # TYPE r4c_adaptivelimit_concurrent_calls gauge
	// r4c_adaptivelimit_concurrent_calls{instance="search"} 1
	// # HELP r4c_adaptivelimit_limit Current limit of the adaptive limit: how many calls may hold a slot at once.
	// # TYPE r4c_adaptivelimit_limit gauge
	// r4c_adaptivelimit_limit{instance="search"} 1
	// # HELP r4c_calls_rejected_total Calls a policy refused without running them, by policy kind and instance.
	// # TYPE r4c_calls_rejected_total counter
	// r4c_calls_rejected_total{instance="search",kind="adaptivelimit"} 1
}

// Two registries exported through one Prometheus registry, told apart by a
// constant label.
func ExampleWithConstLabels() {
	payments, _ := r4c.NewRegistry()
	search, _ := r4c.NewRegistry()
	a := r4cprometheus.NewCollector(payments, r4cprometheus.WithConstLabels(prometheus.Labels{"registry": "payments"}))
	defer a.Close()
	b := r4cprometheus.NewCollector(search, r4cprometheus.WithConstLabels(prometheus.Labels{"registry": "search"}))
	defer b.Close()
	promReg := prometheus.NewRegistry()
	fmt.Println(promReg.Register(a), promReg.Register(b))
	// Output:
	// <nil> <nil>
}
