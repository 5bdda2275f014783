package r4cfailsafe_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/failsafe-go/failsafe-go"
	fsbulkhead "github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	fstimeout "github.com/failsafe-go/failsafe-go/timeout"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/resilience4cata/r4c/r4cfailsafe"
)

// buildWith builds an adaptive-limit pipeline "svc" on reg with w inside.
func buildWith(t *testing.T, reg *r4c.Registry, w policy.Policy[string]) (*pipeline.Pipeline[string], *adaptivelimit.Handle) {
	t.Helper()
	p, err := pipeline.NewBuilder[string](reg, "svc").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 }).
		Use(w).
		Build()
	require.NoError(t, err)
	h, err := reg.AdaptiveLimit("svc")
	require.NoError(t, err)
	return p, h
}

func TestFailsafeRetryInsideAPipeline(t *testing.T) {
	reg, _ := newRegistry(t)
	retry := retrypolicy.NewBuilder[string]().WithMaxRetries(2).Build()
	p, h := buildWith(t, reg, r4cfailsafe.Wrap("svc-retry", retry))

	var attempts int
	v, err := p.Execute(func() (string, error) {
		attempts++
		if attempts < 3 {
			return "", errNotFound
		}
		return "found", nil
	})
	require.NoError(t, err)
	assert.Equal(t, "found", v)
	assert.Equal(t, 3, attempts, "failsafe-go's retry retries the rest of the chain")
	assert.Equal(t, 0, h.InFlight())

	attempts = 0
	_, err = p.Execute(func() (string, error) { attempts++; return "", errNotFound })
	assert.Equal(t, 3, attempts, "max retries 2")
	assert.ErrorIs(t, err, retrypolicy.ErrExceeded)
	assert.ErrorIs(t, err, errNotFound)
	var ee retrypolicy.ExceededError
	assert.ErrorAs(t, err, &ee, "failsafe-go's error, as it returns it")
	assert.NotErrorIs(t, err, policy.ErrRejected)
}

// A failsafe-go retry waits on the real clock: inside a synctest bubble
// its delays are exact.
func TestFailsafeRetryDelayInsideAPipeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		retry := retrypolicy.NewBuilder[string]().WithMaxRetries(2).WithDelay(100 * time.Millisecond).Build()
		p, _ := buildWith(t, reg, r4cfailsafe.Wrap("svc-retry", retry))
		var at []time.Time
		_, err = p.Execute(func() (string, error) { at = append(at, time.Now()); return "", errNotFound })
		require.Error(t, err)
		require.Len(t, at, 3)
		assert.Equal(t, 100*time.Millisecond, at[1].Sub(at[0]))
		assert.Equal(t, 100*time.Millisecond, at[2].Sub(at[1]))
	})
}

func TestFailsafeBreakerInsideAPipeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		var rejected []events.CallRejected
		stop := reg.Events().Subscribe(func(e events.Event) {
			if r, ok := e.(events.CallRejected); ok {
				rejected = append(rejected, r)
			}
		})
		defer stop()
		cb := circuitbreaker.NewBuilder[string]().WithFailureThreshold(2).WithDelay(time.Minute).Build()
		p, h := buildWith(t, reg, r4cfailsafe.Wrap("payments", cb).Events(reg.Events()))

		fail := func() (string, error) { return "", errNotFound }
		_, err = p.Execute(fail)
		assert.ErrorIs(t, err, errNotFound)
		_, err = p.Execute(fail)
		assert.ErrorIs(t, err, errNotFound)
		require.True(t, cb.IsOpen(), "failsafe-go's breaker counts the pipeline's failures")

		called := false
		_, err = p.Execute(func() (string, error) { called = true; return "", nil })
		assert.False(t, called)
		assert.ErrorIs(t, err, circuitbreaker.ErrOpen)
		assert.ErrorIs(t, err, policy.ErrRejected, "an r4c rejection: safe to fall back")
		var re *policy.RejectedError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, r4cfailsafe.KindCircuitBreaker, re.Kind)
		assert.Equal(t, "payments", re.InstanceID())
		require.Len(t, rejected, 1)
		assert.Equal(t, events.CallRejected{Policy: r4cfailsafe.KindCircuitBreaker, Instance: "payments", Err: err}, rejected[0])
		s := h.Snapshot()
		assert.Equal(t, 0, s.InFlight)
		assert.Equal(t, int64(0), s.Drops, "a breaker's rejection is not an overload signal")

		time.Sleep(time.Minute) // the breaker's delay, on the bubble's clock
		v, err := p.Execute(func() (string, error) { return "paid", nil })
		require.NoError(t, err)
		assert.Equal(t, "paid", v)
		assert.True(t, cb.IsClosed(), "half-open, then closed by a success")
	})
}

// A failsafe-go timeout or full bulkhead inside the adaptive limit is a
// drop, as r4c's own are.
func TestFailsafeOverloadIsADrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg, err := r4c.NewRegistry()
		require.NoError(t, err)
		p, h := buildWith(t, reg, r4cfailsafe.Wrap("svc", fstimeout.New[string](time.Second)))
		_, err = p.ExecuteContext(context.Background(), func(ctx context.Context) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
		assert.ErrorIs(t, err, fstimeout.ErrExceeded)
		assert.ErrorIs(t, err, timeout.ErrCallTimeout)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, int64(1), h.Snapshot().Drops)
	})

	reg, _ := newRegistry(t)
	bh := fsbulkhead.New[string](1)
	p, h := buildWith(t, reg, r4cfailsafe.Wrap("svc", bh))
	entered, gate, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		_, err := p.Execute(func() (string, error) { close(entered); <-gate; return "", nil })
		done <- err
	}()
	<-entered
	_, err := p.Execute(func() (string, error) { return "", nil })
	assert.ErrorIs(t, err, fsbulkhead.ErrFull)
	assert.ErrorIs(t, err, bulkhead.ErrFull, "r4c's sentinel too")
	assert.ErrorIs(t, err, policy.ErrRejected)
	assert.Equal(t, int64(1), h.Snapshot().Drops, "a full bulkhead inside the limit is a drop")
	close(gate)
	require.NoError(t, <-done)
}

// A panic settles failsafe-go's policies (the bulkhead's permit comes back,
// the retry does not retry it), frees r4c's slot, and goes on.
func TestPanicThroughWrapped(t *testing.T) {
	reg, _ := newRegistry(t)
	bh := fsbulkhead.New[string](1)
	retry := retrypolicy.NewBuilder[string]().WithMaxRetries(5).Build()
	p, h := buildWith(t, reg, r4cfailsafe.Wrap("svc", retry, bh))
	var calls atomic.Int32
	assert.PanicsWithValue(t, "boom", func() {
		_, _ = p.Execute(func() (string, error) { calls.Add(1); panic("boom") })
	})
	assert.Equal(t, int32(1), calls.Load(), "a panic is not retried")
	assert.Equal(t, 0, h.InFlight(), "r4c's slot is freed")
	v, err := p.Execute(func() (string, error) { return "next", nil })
	require.NoError(t, err, "failsafe-go's bulkhead got its permit back")
	assert.Equal(t, "next", v)
}

func TestCallerCancellationThroughWrapped(t *testing.T) {
	reg, _ := newRegistry(t)
	retry := retrypolicy.NewBuilder[string]().WithMaxRetries(5).Build()
	p, h := buildWith(t, reg, r4cfailsafe.Wrap("svc", retry))
	ctx, cancel := context.WithCancel(context.Background())
	var calls int
	_, err := p.ExecuteContext(ctx, func(ctx context.Context) (string, error) {
		calls++
		cancel()
		return "", ctx.Err()
	})
	assert.Same(t, context.Canceled, err, "the caller's cancellation, unchanged")
	assert.Equal(t, 1, calls, "not retried")
	s := h.Snapshot()
	assert.Equal(t, 0, s.InFlight)
	assert.Equal(t, int64(0), s.Drops)
}

func TestRetryExhaustedOnARejectionIsARejection(t *testing.T) {
	reg, _ := newRegistry(t)
	cb := circuitbreaker.NewBuilder[string]().WithFailureThreshold(1).Build()
	retry := retrypolicy.NewBuilder[string]().WithMaxRetries(1).Build()
	p, _ := buildWith(t, reg, r4cfailsafe.Wrap("svc", retry, cb))
	_, err := p.Execute(func() (string, error) { return "", errNotFound })
	var ee retrypolicy.ExceededError
	require.ErrorAs(t, err, &ee)
	assert.ErrorIs(t, err, circuitbreaker.ErrOpen, "the second attempt found the breaker open")
	assert.ErrorIs(t, err, policy.ErrRejected)
	var re *policy.RejectedError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, r4cfailsafe.KindCircuitBreaker, re.Kind)
}

func TestWrappedAsync(t *testing.T) {
	reg, _ := newRegistry(t)
	retry := retrypolicy.NewBuilder[string]().WithMaxRetries(1).Build()
	p, h := buildWith(t, reg, r4cfailsafe.Wrap("svc", retry))
	var attempts atomic.Int32
	f := p.ExecuteAsync(context.Background(), func(context.Context) (string, error) {
		if attempts.Add(1) == 1 {
			return "", errNotFound
		}
		return "async", nil
	})
	v, err := f.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "async", v)
	assert.Equal(t, int32(2), attempts.Load())
	assert.Equal(t, 0, h.InFlight())
}

func TestWrapExecutorKeepsListeners(t *testing.T) {
	reg, _ := newRegistry(t)
	var done atomic.Int32
	exec := failsafe.With[string](retrypolicy.NewWithDefaults[string]()).
		OnDone(func(failsafe.ExecutionDoneEvent[string]) { done.Add(1) })
	p, _ := buildWith(t, reg, r4cfailsafe.WrapExecutor("svc", exec))
	_, err := p.Execute(func() (string, error) { return "ok", nil })
	require.NoError(t, err)
	assert.Equal(t, int32(1), done.Load())

	empty, _ := buildWithName(t, reg, "empty", r4cfailsafe.WrapExecutor[string]("none", nil))
	v, err := empty.Execute(func() (string, error) { return "plain", nil })
	require.NoError(t, err)
	assert.Equal(t, "plain", v)
}

func buildWithName(t *testing.T, reg *r4c.Registry, name string, w policy.Policy[string]) (*pipeline.Pipeline[string], error) {
	t.Helper()
	p, err := pipeline.NewBuilder[string](reg, name).Use(w).Build()
	require.NoError(t, err)
	return p, err
}
