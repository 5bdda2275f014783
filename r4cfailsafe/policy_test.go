package r4cfailsafe_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	fsbulkhead "github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	fspolicy "github.com/failsafe-go/failsafe-go/policy"
	"github.com/failsafe-go/failsafe-go/ratelimiter"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	fstimeout "github.com/failsafe-go/failsafe-go/timeout"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/r4cfailsafe"
)

func newRegistry(t *testing.T, opts ...r4c.Option) (*r4c.Registry, *clocktest.ManualClock) {
	t.Helper()
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(append([]r4c.Option{r4c.WithClock(clk)}, opts...)...)
	require.NoError(t, err)
	return reg, clk
}

func limitPolicy(t *testing.T, reg *r4c.Registry, configure func(*adaptivelimit.Config)) (*r4cfailsafe.Policy[string], *adaptivelimit.Handle) {
	t.Helper()
	p, err := r4cfailsafe.NewAdaptiveLimit[string](reg, "search", configure)
	require.NoError(t, err)
	h, err := reg.AdaptiveLimit("search")
	require.NoError(t, err)
	return p, h
}

// hold runs a call through exec that stays in its function until release
// is called; it returns once the function is running.
func hold(t *testing.T, exec failsafe.Executor[string]) (release func()) {
	t.Helper()
	entered, gate, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		_, err := exec.Get(func() (string, error) { close(entered); <-gate; return "held", nil })
		done <- err
	}()
	<-entered
	return func() {
		close(gate)
		require.NoError(t, <-done)
	}
}

func TestAdaptiveLimitMeasuresFailsafeCalls(t *testing.T) {
	reg, clk := newRegistry(t)
	p, h := limitPolicy(t, reg, func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 })
	v, err := failsafe.With[string](p).Get(func() (string, error) {
		assert.Equal(t, 1, h.InFlight(), "the call holds a slot of the registry's instance")
		clk.Advance(time.Second)
		return "results", nil
	})
	require.NoError(t, err)
	assert.Equal(t, "results", v)
	s := h.Snapshot()
	assert.Equal(t, int64(1), s.Windows)
	assert.Equal(t, time.Second, s.WindowLatency, "latency on the registry's clock")
	assert.Equal(t, 0, s.InFlight)
}

func TestAdaptiveLimitRejectionMatchesBothLibraries(t *testing.T) {
	reg, _ := newRegistry(t)
	var rejected []events.CallRejected
	stop := reg.Events().Subscribe(func(e events.Event) {
		if r, ok := e.(events.CallRejected); ok {
			rejected = append(rejected, r)
		}
	})
	defer stop()
	p, h := limitPolicy(t, reg, func(c *adaptivelimit.Config) { c.InitialLimit = 1 })
	exec := failsafe.With[string](p)
	release := hold(t, exec)
	defer release()

	called := false
	_, err := exec.Get(func() (string, error) { called = true; return "", nil })
	require.Error(t, err)
	assert.False(t, called, "a rejected call is not made")
	assert.ErrorIs(t, err, adaptivelimiter.ErrExceeded, "failsafe-go's sentinel")
	assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded, "r4c's sentinel")
	assert.ErrorIs(t, err, policy.ErrRejected)
	var lee *adaptivelimit.LimitExceededError
	require.ErrorAs(t, err, &lee)
	assert.Equal(t, "search", lee.InstanceID())
	assert.Equal(t, "r4c: adaptive limit search exceeded", err.Error())
	var seam *r4cfailsafe.Error
	require.ErrorAs(t, err, &seam)

	_, err2 := exec.Get(func() (string, error) { return "", nil })
	assert.Same(t, seam, err2, "the seam's error is made once per instance")
	assert.Equal(t, int64(2), h.Snapshot().Rejections)
	require.Len(t, rejected, 2, "rejections publish on the registry's bus")
	assert.Equal(t, "adaptivelimit", rejected[0].Policy)
}

func TestFailsafeRetryRetriesOurRejection(t *testing.T) {
	reg, _ := newRegistry(t)
	p, h := limitPolicy(t, reg, func(c *adaptivelimit.Config) { c.InitialLimit = 1 })
	retry := retrypolicy.NewBuilder[string]().WithMaxRetries(2).Build()
	release := hold(t, failsafe.With[string](p))
	defer release()
	_, err := failsafe.With[string](retry, p).Get(func() (string, error) { return "", nil })
	assert.ErrorIs(t, err, retrypolicy.ErrExceeded)
	assert.ErrorIs(t, err, adaptivelimiter.ErrExceeded, "the last attempt's rejection")
	assert.ErrorIs(t, err, policy.ErrRejected)
	assert.Equal(t, int64(3), h.Snapshot().Rejections, "each attempt asks for its own slot")
}

var errNotFound = errors.New("not found")

// The outcomes of failsafe-go executions are classified as in an r4c
// pipeline.
func TestAdaptiveLimitClassifiesFailsafeOutcomes(t *testing.T) {
	cases := []struct {
		name           string
		fn             func(ctx context.Context, cancel context.CancelFunc) (string, error)
		samples, drops int
	}{
		{"success", func(context.Context, context.CancelFunc) (string, error) { return "ok", nil }, 1, 0},
		{"failsafe-go timeout error", func(context.Context, context.CancelFunc) (string, error) { return "", fstimeout.ErrExceeded }, 1, 1},
		{"wrapped failsafe-go timeout", func(context.Context, context.CancelFunc) (string, error) {
			return "", retrypolicy.ExceededError{LastError: fstimeout.ErrExceeded}
		}, 1, 1},
		{"failsafe-go bulkhead full", func(context.Context, context.CancelFunc) (string, error) { return "", fsbulkhead.ErrFull }, 1, 1},
		{"r4c call timeout", func(context.Context, context.CancelFunc) (string, error) { return "", policy.ErrCallTimeout }, 1, 1},
		{"other error", func(context.Context, context.CancelFunc) (string, error) { return "", errNotFound }, 0, 0},
		{"caller cancelled", func(ctx context.Context, cancel context.CancelFunc) (string, error) {
			cancel()
			return "", ctx.Err()
		}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg, clk := newRegistry(t)
			p, h := limitPolicy(t, reg, func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, _ = failsafe.With[string](p).WithContext(ctx).GetWithExecution(func(e failsafe.Execution[string]) (string, error) {
				clk.Advance(time.Second)
				return c.fn(e.Context(), cancel)
			})
			s := h.Snapshot()
			assert.Equal(t, 0, s.InFlight)
			assert.Equal(t, c.samples, s.WindowSamples)
			assert.Equal(t, int64(c.drops), s.Drops)
		})
	}
}

func TestAdaptiveLimitPanicFreesTheSlot(t *testing.T) {
	reg, _ := newRegistry(t)
	p, h := limitPolicy(t, reg, func(c *adaptivelimit.Config) { c.InitialLimit = 1 })
	assert.PanicsWithValue(t, "boom", func() {
		_, _ = failsafe.With[string](p).Get(func() (string, error) { panic("boom") })
	})
	assert.Equal(t, 0, h.InFlight(), "the panic freed the slot")
	v, err := failsafe.With[string](p).Get(func() (string, error) { return "next", nil })
	require.NoError(t, err)
	assert.Equal(t, "next", v)
}

// A real failsafe-go timeout, on the real clock inside a synctest bubble:
// inside the limit it is a drop; outside, it cancels the call, which frees
// the slot with no sample.
func TestFailsafeTimeoutAroundAndInsideOurLimit(t *testing.T) {
	slow := func(e failsafe.Execution[string]) (string, error) {
		select {
		case <-e.Context().Done():
			return "", e.Context().Err()
		case <-time.After(2 * time.Second):
			return "late", nil
		}
	}
	synctest.Test(t, func(t *testing.T) {
		reg, err := r4c.NewRegistry() // the real clock: the bubble's
		require.NoError(t, err)
		p, err := r4cfailsafe.NewAdaptiveLimit[string](reg, "inside", func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 })
		require.NoError(t, err)
		h, _ := reg.AdaptiveLimit("inside")
		_, err = failsafe.With[string](p, fstimeout.New[string](time.Second)).GetWithExecution(slow)
		assert.ErrorIs(t, err, fstimeout.ErrExceeded)
		s := h.Snapshot()
		assert.Equal(t, int64(1), s.Drops, "a timeout inside the limit is a drop")
		assert.Equal(t, 0, s.InFlight)
	})
	synctest.Test(t, func(t *testing.T) {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		p, err := r4cfailsafe.NewAdaptiveLimit[string](reg, "outside", nil)
		require.NoError(t, err)
		h, _ := reg.AdaptiveLimit("outside")
		_, err = failsafe.With[string](fstimeout.New[string](time.Second), p).GetWithExecution(slow)
		assert.ErrorIs(t, err, fstimeout.ErrExceeded)
		synctest.Wait() // the call behind the timeout returns
		s := h.Snapshot()
		assert.Equal(t, int64(0), s.Drops, "cancelled from outside: the caller's cancellation")
		assert.Equal(t, 0, s.InFlight)
	})
}

func TestCheckOnlyTakesNoSample(t *testing.T) {
	reg, clk := newRegistry(t)
	p, h := limitPolicy(t, reg, func(c *adaptivelimit.Config) { c.InitialLimit, c.MinWindowSamples = 1, 1 })
	check := context.WithValue(context.Background(), fspolicy.CheckOnlyKey, true)
	clk.Advance(2 * time.Second)
	ran := false
	require.NoError(t, failsafe.With[string](p).WithContext(check).Run(func() error {
		ran = true
		assert.Equal(t, 0, h.InFlight(), "the check does not hold the slot")
		return nil
	}))
	assert.True(t, ran)
	assert.Equal(t, int64(0), h.Snapshot().Windows, "no sample: the window is not ended")

	release := hold(t, failsafe.With[string](p))
	defer release()
	err := failsafe.With[string](p).WithContext(check).Run(func() error { return nil })
	assert.ErrorIs(t, err, adaptivelimiter.ErrExceeded)
	assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
}

func TestBulkheadBreakerRateLimitAsFailsafePolicies(t *testing.T) {
	reg, clk := newRegistry(t)

	bh, err := r4cfailsafe.NewBulkhead[string](reg, "db", func(c *bulkhead.Config) { c.MaxConcurrent = 1 })
	require.NoError(t, err)
	release := hold(t, failsafe.With[string](bh))
	_, err = failsafe.With[string](bh).Get(func() (string, error) { return "", nil })
	assert.ErrorIs(t, err, fsbulkhead.ErrFull)
	assert.ErrorIs(t, err, bulkhead.ErrFull)
	assert.ErrorIs(t, err, policy.ErrRejected)
	release()
	h, _ := reg.Bulkhead("db")
	assert.Equal(t, 0, h.InFlight())

	br, err := r4cfailsafe.NewBreaker[string](reg, "payments", func(c *breaker.Config) {
		c.WindowSize, c.MinimumCalls, c.OpenFor, c.HalfOpenCalls = 2, 2, time.Minute, 1
	})
	require.NoError(t, err)
	bhnd, _ := reg.Breaker("payments")
	fail := func() (string, error) { return "", errNotFound }
	_, _ = failsafe.With[string](br).Get(fail)
	_, _ = failsafe.With[string](br).Get(fail)
	require.Equal(t, breaker.StateOpen, bhnd.State(), "failsafe-go's executions are recorded")
	_, err = failsafe.With[string](br).Get(fail)
	assert.ErrorIs(t, err, circuitbreaker.ErrOpen)
	assert.ErrorIs(t, err, breaker.ErrOpen)
	assert.ErrorIs(t, err, policy.ErrRejected)
	clk.Advance(time.Minute)
	_, err = failsafe.With[string](br).Get(func() (string, error) { return "ok", nil })
	require.NoError(t, err, "the open wait runs on the registry's clock")
	assert.Equal(t, breaker.StateClosed, bhnd.State())
	assert.PanicsWithValue(t, "boom", func() {
		_, _ = failsafe.With[string](br).Get(func() (string, error) { panic("boom") })
	})
	assert.Equal(t, 1, bhnd.Snapshot().Failures, "a panic is recorded as a failure")

	rl, err := r4cfailsafe.NewRateLimit[string](reg, "api", func(c *ratelimit.Config) { c.Limit, c.Period, c.Burst = 1, time.Second, 1 })
	require.NoError(t, err)
	_, err = failsafe.With[string](rl).Get(func() (string, error) { return "", nil })
	require.NoError(t, err)
	_, err = failsafe.With[string](rl).Get(func() (string, error) { return "", nil })
	assert.ErrorIs(t, err, ratelimiter.ErrExceeded)
	assert.ErrorIs(t, err, ratelimit.ErrRateLimited)
	var rle *ratelimit.RateLimitedError
	require.ErrorAs(t, err, &rle)
	assert.Equal(t, time.Second, rle.RetryAfter())
}

func TestComposeAny(t *testing.T) {
	reg, _ := newRegistry(t)
	p, err := r4cfailsafe.NewAdaptiveLimit[any](reg, "any", nil)
	require.NoError(t, err)
	retry := retrypolicy.NewWithDefaults[int]()
	v, err := failsafe.With[int](retry).ComposeAny(p).Get(func() (int, error) { return 7, nil })
	require.NoError(t, err)
	assert.Equal(t, 7, v)
	v, err = failsafe.WithAny[int](p).Get(func() (int, error) { return 8, nil })
	require.NoError(t, err)
	assert.Equal(t, 8, v)
}

func TestNilHandle(t *testing.T) {
	for name, p := range map[string]*r4cfailsafe.Policy[string]{
		"adaptivelimit": r4cfailsafe.AdaptiveLimit[string](nil),
		"bulkhead":      r4cfailsafe.Bulkhead[string](nil),
		"breaker":       r4cfailsafe.Breaker[string](nil),
		"ratelimit":     r4cfailsafe.RateLimit[string](nil),
	} {
		called := false
		_, err := failsafe.With[string](p).Get(func() (string, error) { called = true; return "", nil })
		assert.ErrorIs(t, err, r4cfailsafe.ErrNoInstance, name)
		assert.False(t, called, name)
	}
}

func TestRegistryConstructors(t *testing.T) {
	reg, _ := newRegistry(t)
	_, err := r4cfailsafe.NewAdaptiveLimit[string](reg, "bad", func(c *adaptivelimit.Config) { c.MinLimit, c.MaxLimit = 50, 10 })
	var ce *r4c.ConfigError
	require.ErrorAs(t, err, &ce, "the registry's coded error")
	assert.ErrorIs(t, err, r4c.ErrConfig)

	_, err = r4cfailsafe.NewAdaptiveLimit[string](reg, "pipeline", func(c *adaptivelimit.Config) { c.Name = "shared" })
	require.NoError(t, err)
	_, err = reg.AdaptiveLimit("shared")
	assert.NoError(t, err, "the instance is the Config.Name's")

	_, err = r4cfailsafe.NewBulkhead[string](nil, "x", nil)
	assert.ErrorIs(t, err, r4c.ErrConfig)
}
