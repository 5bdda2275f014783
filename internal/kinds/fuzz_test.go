package kinds

import (
	"errors"
	"testing"

	"github.com/resilience4cata/r4c/internal/engine"
)

// FuzzExternalKeys feeds any flat key, variable and value to an engine of
// the eight kinds: reading and checking them never panics, and fails only
// with a coded error. The seeds run as an ordinary test.
func FuzzExternalKeys(f *testing.F) {
	for _, s := range [][3]string{
		{"defaults.adaptiveLimit.maxLimit", "R4C_DEFAULTS_ADAPTIVELIMIT_MAXLIMIT", "100"},
		{"instances.a.b.breaker.windowType", "R4C_INSTANCES_A_B_BREAKER_WINDOWTYPE", "TIME_BASED"},
		{"configs.x.retry.baseConfig", "R4C_CONFIGS__RETRY_WAIT", "PT0.1S"},
		{"instances..hedge.delay", "R4C_INSTANCES_X__DELAY", "-1s"},
		{"instances.x.circuitBreaker.failureRateThreshold", "R4C_INSTANCES_X_CIRCUITBREAKER_FAILURERATETHRESHOLD", "50"},
		{"defaults.rateLimiter.burst", "R4C_DEFAULTS_RATELIMITER_", "0"},
		{"x", "R4C_", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, key, variable, value string) {
		for _, add := range []func(r *engine.Registry) error{
			func(r *engine.Registry) error { return r.AddProperties(map[string]string{key: value}) },
			func(r *engine.Registry) error { return r.AddEnv([]string{variable + "=" + value}) },
		} {
			r := engine.New(All()...)
			err := add(r)
			if err == nil {
				err = r.Check()
			}
			if err == nil {
				_ = r.UnusedKeys()
				continue
			}
			var e *engine.Error
			if !errors.As(err, &e) || e.Code == 0 || e.Code >= engine.NumCodes || e.Rule == "" {
				t.Fatalf("%q / %q = %q: %v is not a coded error", key, variable, value, err)
			}
		}
	})
}
