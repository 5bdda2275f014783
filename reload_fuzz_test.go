package r4c_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/fallback"
)

// FuzzReload reloads a registry whose pipeline uses every kind with any
// one key and value added to its sources: Reload never panics, and either
// succeeds or fails with a coded error and changes nothing. The seeds run
// as an ordinary test.
func FuzzReload(f *testing.F) {
	for _, s := range [][2]string{
		{"instances.api.rateLimit.limit", "20"},
		{"instances.api.bulkhead.maxConcurrent", "0"},
		{"instances.api.adaptiveLimit.algorithm", "vegas"},
		{"instances.api.breaker.failureRateThreshold", "0.01"},
		{"instances.api.circuitBreaker.windowSize", "3"},
		{"defaults.retry.wait", "PT0.5S"},
		{"defaults.timeout.timeout", "-1s"},
		{"configs.x.hedge.delay", "1 sec"},
		{"instances.api.fallback.enabled", "true"},
		{"instances.api.bulkhead.baseConfig", "nope"},
		{"instances.api.adaptiveLimit.minLimit", "1000"},
		{"instances..rateLimit.limit", "1"},
		{"x", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		props := map[string]string{}
		reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()), r4c.WithProperties(props))
		if err != nil {
			t.Fatal(err)
		}
		_, err = pipeline.NewBuilder[string](reg, "api").
			Fallback(func(c *fallback.Config) { c.Value = "v" }).Retry(nil).Breaker(nil).Hedge(nil).
			RateLimit(nil).AdaptiveLimit(nil).Timeout(nil).Bulkhead(nil).Build()
		if err != nil {
			t.Fatal(err)
		}
		before := reg.Snapshot()
		props[key] = value
		err = reg.Reload()
		if err == nil {
			return
		}
		var ce *r4c.ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(ce.Code, "R4C-") || ce.Rule == "" || !errors.Is(err, r4c.ErrConfig) {
			t.Fatalf("%q=%q: %v is not a coded error", key, value, err)
		}
		after := reg.Snapshot()
		if !equalSnapshots(before, after) {
			t.Fatalf("%q=%q: a failed reload changed the instances:\n%+v\n%+v", key, value, before, after)
		}
	})
}

func equalSnapshots(a, b r4c.Snapshot) bool { return reflect.DeepEqual(a, b) }
