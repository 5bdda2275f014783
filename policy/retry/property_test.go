package retry_test

import (
	"context"
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/retry"
)

// TestOutcomeProperties runs random scripts of outcomes through a retry
// and checks the attempts made, the error returned and the counters.
func TestOutcomeProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		max := rapid.IntRange(1, 6).Draw(t, "maxAttempts")
		// 0: success, 1: retryable error, 2: aborting error
		script := rapid.SliceOfN(rapid.IntRange(0, 2), 1, 8).Draw(t, "script")
		r, err := retry.New(retry.Config{
			MaxAttempts: max,
			AbortOn:     []error{errFatal},
			Jitter:      retry.JitterFull,
			Rand:        func() float64 { return 0 },
		}, policy.Env{})
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		_, _, got := retry.Stage[int](r).Run(context.Background(), policy.NewNext[int](nil, func(context.Context) (int, error) {
			k := script[min(calls, len(script)-1)]
			calls++
			switch k {
			case 1:
				return 0, errBoom
			case 2:
				return 0, errFatal
			}
			return 1, nil
		}, nil))

		// The model: attempts go on while they fail with errBoom.
		want := 0
		var last int
		for want < max {
			last = script[min(want, len(script)-1)]
			want++
			if last != 1 {
				break
			}
		}
		if calls != want {
			t.Fatalf("%d attempts, want %d", calls, want)
		}
		s := r.Handle().Snapshot()
		switch last {
		case 0:
			if got != nil {
				t.Fatalf("error %v, want success", got)
			}
		case 1:
			var ex *retry.ExhaustedError
			if !errors.As(got, &ex) || ex.Attempts != max || !errors.Is(got, errBoom) {
				t.Fatalf("error %v, want exhausted after %d", got, max)
			}
		case 2:
			if got != errFatal {
				t.Fatalf("error %v, want errFatal unchanged", got)
			}
		}
		if s.Calls != 1 || s.Retries != int64(calls-1) {
			t.Fatalf("snapshot %+v after %d attempts", s, calls)
		}
	})
}
