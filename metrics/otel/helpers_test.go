package r4cotel_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/resilience4cata/r4c"
	r4cotel "github.com/resilience4cata/r4c/metrics/otel"
)

// newMetrics registers the instruments of reg on a meter provider read by a
// ManualReader.
func newMetrics(t testing.TB, reg *r4c.Registry, opts ...r4cotel.Option) (*sdkmetric.ManualReader, *r4cotel.Metrics) {
	t.Helper()
	mr := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(mr))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	m, err := r4cotel.Register(reg, append([]r4cotel.Option{r4cotel.WithMeterProvider(mp)}, opts...)...)
	require.NoError(t, err)
	return mr, m
}

// collect reads mr once and returns one line per data point, sorted:
// "name{attr=value,...} value", preceded for each instrument by a line
// "# name unit type" (type: gauge, sum for a monotonic cumulative sum, or
// histogram).
func collect(t testing.TB, mr *sdkmetric.ManualReader, names ...string) []string {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, mr.Collect(context.Background(), &rm))
	var out []string
	for _, sm := range rm.ScopeMetrics {
		require.Equal(t, r4cotel.ScopeName, sm.Scope.Name)
		for _, m := range sm.Metrics {
			if len(names) > 0 && !slices.Contains(names, m.Name) {
				continue
			}
			var lines []string
			var typ string
			point := func(attrs attribute.Set, v any) {
				lines = append(lines, fmt.Sprintf("%s{%s} %v", m.Name, attrString(attrs), v))
			}
			switch d := m.Data.(type) {
			case metricdata.Gauge[int64]:
				typ = "gauge"
				for _, p := range d.DataPoints {
					point(p.Attributes, p.Value)
				}
			case metricdata.Gauge[float64]:
				typ = "gauge"
				for _, p := range d.DataPoints {
					point(p.Attributes, p.Value)
				}
			case metricdata.Sum[int64]:
				require.True(t, d.IsMonotonic, m.Name)
				require.Equal(t, metricdata.CumulativeTemporality, d.Temporality, m.Name)
				typ = "sum"
				for _, p := range d.DataPoints {
					point(p.Attributes, p.Value)
				}
			case metricdata.Histogram[float64]:
				require.Equal(t, metricdata.CumulativeTemporality, d.Temporality, m.Name)
				typ = "histogram"
				for _, p := range d.DataPoints {
					point(p.Attributes, fmt.Sprintf("count=%d sum=%g bounds=%v counts=%v", p.Count, p.Sum, p.Bounds, p.BucketCounts))
				}
			default:
				t.Fatalf("%s: unexpected data %T", m.Name, m.Data)
			}
			if len(lines) == 0 {
				continue
			}
			slices.Sort(lines)
			out = append(out, fmt.Sprintf("# %s %s %s", m.Name, m.Unit, typ))
			out = append(out, lines...)
		}
	}
	return out
}

func attrString(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.String())
	}
	return strings.Join(parts, ",")
}
