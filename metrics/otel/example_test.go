package r4cotel_test

import (
	"context"
	"fmt"
	"log"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/future"
	r4cotel "github.com/resilience4cata/r4c/metrics/otel"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// The instruments of a registry on an SDK meter provider: the limit and the
// calls in flight are observed at collection, the rejection is counted from
// its event.
func ExampleRegister() {
	clk := clocktest.NewManualClock() // tests only; omit WithClock in production
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	if err != nil {
		log.Fatal(err)
	}
	reader := sdkmetric.NewManualReader() // in production: a periodic reader and an exporter
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer provider.Shutdown(context.Background())
	m, err := r4cotel.Register(reg, r4cotel.WithMeterProvider(provider))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

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

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch m.Name {
			case "r4c.adaptivelimit.limit", "r4c.adaptivelimit.concurrent.calls":
				for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
					inst, _ := dp.Attributes.Value("instance")
					fmt.Printf("%s{instance=%s} %d\n", m.Name, inst.AsString(), dp.Value)
				}
			case "r4c.calls.rejected":
				for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
					inst, _ := dp.Attributes.Value("instance")
					kind, _ := dp.Attributes.Value("kind")
					fmt.Printf("%s{kind=%s,instance=%s} %d\n", m.Name, kind.AsString(), inst.AsString(), dp.Value)
				}
			}
		}
	}

	pending.Complete("done")
	_, _ = f.Get(context.Background())
	// Output:
	// r4c: adaptive limit search exceeded
	// r4c.calls.rejected{kind=adaptivelimit,instance=search} 1
	// r4c.adaptivelimit.limit{instance=search} 1
	// r4c.adaptivelimit.concurrent.calls{instance=search} 1
}
