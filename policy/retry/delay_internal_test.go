package retry

import (
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c/policy"
)

// TestDelayProperties checks, over random settings, that every wait stays
// within its bounds: JitterNone grows and never passes MaxDelay, full
// jitter stays below the backoff, decorrelated stays in [Wait, 3×prev].
func TestDelayProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		wait := time.Duration(rapid.Int64Range(1, int64(time.Hour)).Draw(t, "wait"))
		cfg := Config{
			Wait:       wait,
			Multiplier: rapid.Float64Range(1, 10).Draw(t, "multiplier"),
			Jitter:     Jitter(rapid.IntRange(0, 2).Draw(t, "jitter")),
		}
		if rapid.Bool().Draw(t, "capped") {
			cfg.MaxDelay = wait + time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "over"))
		}
		x := rapid.Float64Range(0, 0.999999).Draw(t, "rand")
		cfg.Rand = func() float64 { return x }
		r, err := New(cfg, policyEnv())
		if err != nil {
			t.Fatal(err)
		}
		var prev, last time.Duration
		for n := 1; n <= 80; n++ {
			d := r.delay(n, prev)
			if d < 0 {
				t.Fatalf("retry %d: negative wait %v", n, d)
			}
			if cfg.MaxDelay > 0 && d > cfg.MaxDelay {
				t.Fatalf("retry %d: %v above MaxDelay %v", n, d, cfg.MaxDelay)
			}
			switch cfg.Jitter {
			case JitterNone:
				if d < last {
					t.Fatalf("retry %d: %v below the previous %v", n, d, last)
				}
				if n == 1 && d != wait {
					t.Fatalf("first wait %v, want %v", d, wait)
				}
			case JitterFull:
				full := float64(wait) * math.Pow(cfg.Multiplier, float64(n-1))
				if cfg.MaxDelay > 0 {
					full = math.Min(full, float64(cfg.MaxDelay))
				}
				if float64(d) > full {
					t.Fatalf("retry %d: %v above the backoff %v", n, d, full)
				}
			case JitterDecorrelated:
				if d < wait {
					t.Fatalf("retry %d: %v below Wait %v", n, d, wait)
				}
				hi := 3 * float64(max(prev, wait))
				if float64(d) > hi+1 {
					t.Fatalf("retry %d: %v above 3×%v", n, d, prev)
				}
			}
			prev, last = d, d
		}
	})
}

func policyEnv() policy.Env { return policy.Env{} }
