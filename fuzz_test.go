package r4c_test

import (
	"errors"
	"testing"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/internal/config"
	"github.com/resilience4cata/r4c/pipeline"
)

// FuzzDurationKey feeds any text to a duration key, through a properties
// map and through the environment, and follows it to the built pipeline:
// text that does not parse is R4C-ATR-001 from NewRegistry, naming the key
// and the text as written; a duration that is not positive is R4C-ATR-004
// from Build; any other is the timeout the pipeline runs with, exactly. The
// seeds (here and in testdata/fuzz/FuzzDurationKey) run in every go test.
func FuzzDurationKey(f *testing.F) {
	for _, s := range []string{"2s", "PT0.5S", "0", "-1s", "1 sec", "", " PT2S ", "P1D", "2562047h47m16.854775807s",
		"9223372036854775808ns", "-PT-1S", "1.5h", "PT1,5S", "p1dt", "+5ms", "1e3s", "\ufeff1s", "1s\x00"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, env bool) {
		key, opt := "instances.fz.timeout.timeout", r4c.WithProperties(map[string]string{"instances.fz.timeout.timeout": text})
		if env {
			key, opt = "R4C_INSTANCES_FZ_TIMEOUT_TIMEOUT", r4c.WithEnv([]string{"R4C_INSTANCES_FZ_TIMEOUT_TIMEOUT=" + text})
		}
		d, perr := config.ParseDuration(text)
		reg, err := r4c.NewRegistry(opt)
		if perr != nil {
			checkCode(t, err, r4c.CodeDurationSyntax, key, text)
			return
		}
		if err != nil {
			t.Fatalf("%s=%q: NewRegistry: %v; ParseDuration: %v", key, text, err, d)
		}
		p, err := pipeline.NewBuilder[int](reg, "fz").Timeout(nil).Build()
		if d <= 0 {
			checkCode(t, err, r4c.CodeNegativeDuration, key, text)
			return
		}
		if err != nil {
			t.Fatalf("%s=%q: Build: %v", key, text, err)
		}
		_ = p
		h, err := reg.Timeout("fz")
		if err != nil || h.Config().Timeout != d {
			t.Fatalf("%s=%q: the timeout is %v (%v); want %v", key, text, h.Config().Timeout, err, time.Duration(d))
		}
	})
}

func checkCode(t *testing.T, err error, code, key, value string) {
	t.Helper()
	var ce *r4c.ConfigError
	if !errors.As(err, &ce) || ce.Code != code || ce.Key != key || ce.Value != value || ce.Rule == "" || !errors.Is(err, r4c.ErrConfig) {
		t.Fatalf("%s=%q: %#v; want a %s error on the key and value as written", key, value, err, code)
	}
}
