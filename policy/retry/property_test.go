package retry_test

import (
	"context"
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/retry"
)

var errPanicky = errors.New("RetryIf panics on this one")

// TestOutcomeProperties runs random scripts of outcomes through a retry
// and checks the attempts made, the error returned and the counters.
func TestOutcomeProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		max := rapid.IntRange(1, 6).Draw(t, "maxAttempts")
		// 0: success, 1: retryable error, 2: aborting error, 3: an error
		// whose RetryIf panics (the call ends there, as a failure)
		script := rapid.SliceOfN(rapid.IntRange(0, 3), 1, 8).Draw(t, "script")
		r, err := retry.New(retry.Config{
			MaxAttempts: max,
			AbortOn:     []error{errFatal},
			RetryIf: func(err error) bool {
				if err == errPanicky {
					panic("RetryIf")
				}
				return true
			},
			Jitter: retry.JitterFull,
			Rand:   func() float64 { return 0 },
		}, policy.Env{})
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		var got error
		panicked := func() (p any) {
			defer func() { p = recover() }()
			_, _, got = retry.Stage[int](r).Run(context.Background(), policy.NewNext[int](nil, func(context.Context) (int, error) {
				k := script[min(calls, len(script)-1)]
				calls++
				switch k {
				case 1:
					return 0, errBoom
				case 2:
					return 0, errFatal
				case 3:
					return 0, errPanicky
				}
				return 1, nil
			}, nil))
			return nil
		}()

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
		if (panicked != nil) != (last == 3) {
			t.Fatalf("panic %v, last attempt %d", panicked, last)
		}
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
		case 3:
			if failures := s.FailuresWithoutRetry + s.FailuresWithRetry; failures != 1 {
				t.Fatalf("snapshot %+v: a panicking RetryIf is one failure", s)
			}
		}
		if s.Calls != 1 || s.Retries != int64(calls-1) {
			t.Fatalf("snapshot %+v after %d attempts", s, calls)
		}
	})
}
