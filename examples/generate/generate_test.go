package generate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/examples/generate"
	"github.com/resilience4cata/r4c/internal/testkit"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/timeout"
)

func manual(t *testing.T, opts ...r4c.Option) (*clocktest.ManualClock, *r4c.Registry) {
	t.Helper()
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(append([]r4c.Option{r4c.WithClock(clk),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.MinWindowSamples = 1 })}, opts...)...)
	require.NoError(t, err)
	return clk, reg
}

// The reference page's async example: two pending calls hold both slots,
// the third is rejected at once without calling the delegate, and the
// window closes with a latency of 1 s.
func TestAsyncExample(t *testing.T) {
	clk, reg := manual(t)
	backend := newOrders()
	orders, err := generate.NewOrderClientResilient(backend, reg)
	require.NoError(t, err)
	limit, err := reg.AdaptiveLimit("orders-async")
	require.NoError(t, err)
	require.Equal(t, 2, limit.Limit())

	a := orders.PlaceAsync("a")
	b := orders.PlaceAsync("b")
	assert.Equal(t, 2, limit.InFlight())
	c := orders.PlaceAsync("c")
	select {
	case <-c.Done():
	default:
		t.Fatal("the third call is pending: it should have been rejected at once")
	}
	_, err = c.Get(context.Background())
	require.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
	require.ErrorIs(t, err, policy.ErrRejected)
	var le *adaptivelimit.LimitExceededError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "orders-async", le.InstanceID())
	assert.Equal(t, []string{"PlaceAsync a", "PlaceAsync b"}, backend.Calls(), "c never reached the delegate")

	clk.Advance(time.Second)
	backend.complete("a", "placed a")
	backend.complete("b", "placed b")
	va, err := a.Get(context.Background())
	require.NoError(t, err)
	vb, err := b.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "placed a", va)
	assert.Equal(t, "placed b", vb)
	s := limit.Snapshot()
	assert.Equal(t, int64(1), s.Windows)
	assert.Equal(t, time.Second, s.WindowLatency)
	assert.Zero(t, s.InFlight)
}

// Cancelling a pending future frees its slot without a sample.
func TestAsyncCancelFreesTheSlot(t *testing.T) {
	_, reg := manual(t)
	backend := newOrders()
	orders, err := generate.NewOrderClientResilient(backend, reg)
	require.NoError(t, err)
	limit, _ := reg.AdaptiveLimit("orders-async")
	a := orders.PlaceAsync("a")
	require.Equal(t, 1, limit.InFlight())
	assert.True(t, a.Cancel())
	assert.Zero(t, limit.InFlight())
	assert.Zero(t, limit.Snapshot().Windows)
}

// The directives' values reach the instances, under the ids and names the
// directives give.
func TestDirectivesConfigureTheInstances(t *testing.T) {
	_, reg := manual(t)
	_, err := generate.NewOrderClientResilient(newOrders(), reg)
	require.NoError(t, err)
	_, err = generate.NewSearchClientResilient(catalogue{}, reg)
	require.NoError(t, err)

	o, err := reg.AdaptiveLimit("orders")
	require.NoError(t, err)
	cfg := o.Config()
	assert.Equal(t, 10, cfg.InitialLimit)
	assert.Equal(t, 100, cfg.MaxLimit)
	assert.Equal(t, 500*time.Millisecond, cfg.Window)

	aimd, err := reg.AdaptiveLimit("orders-aimd")
	require.NoError(t, err)
	assert.Equal(t, adaptivelimit.AIMD, aimd.Config().Algorithm)

	to, err := reg.Timeout("generate.OrderClient.Place")
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, to.Timeout())
	rt, err := reg.Retry("generate.OrderClient.Cancel")
	require.NoError(t, err)
	assert.Equal(t, 2, rt.Config().MaxAttempts)
	assert.Equal(t, 100*time.Millisecond, rt.Config().Wait)

	// The interface's directive gives every method of SearchClient a limit
	// of its own, under its default id.
	for _, id := range []string{"generate.SearchClient.Search", "generate.SearchClient.Suggest"} {
		_, err := reg.AdaptiveLimit(id)
		assert.NoError(t, err, id)
	}
	_, err = reg.Timeout("generate.SearchClient.Search")
	assert.NoError(t, err)
	_, err = reg.Timeout("generate.SearchClient.Suggest")
	assert.Error(t, err, "Suggest has no timeout")
}

// External instance keys apply to the generated pipelines like to any.
func TestExternalKeysReachTheWrapper(t *testing.T) {
	_, reg := manual(t, r4c.WithProperties(map[string]string{
		"instances.orders.adaptiveLimit.maxLimit":                "50",
		"instances.generate.SearchClient.Search.timeout.timeout": "PT0.5S",
	}))
	_, err := generate.NewOrderClientResilient(newOrders(), reg)
	require.NoError(t, err)
	_, err = generate.NewSearchClientResilient(catalogue{}, reg)
	require.NoError(t, err)
	o, _ := reg.AdaptiveLimit("orders")
	assert.Equal(t, 50, o.Config().MaxLimit)
	to, _ := reg.Timeout("generate.SearchClient.Search")
	assert.Equal(t, 500*time.Millisecond, to.Timeout())
}

// A timeout inside the limit answers the caller at the deadline with the
// timeout's error and counts as a drop.
func TestPlaceTimesOutAsADrop(t *testing.T) {
	clk, reg := manual(t)
	backend := newOrders()
	release := make(chan struct{})
	backend.place = func(ctx context.Context, order string) (string, error) {
		<-release // a slow backend that ignores its ctx
		return "late " + order, nil
	}
	orders, err := generate.NewOrderClientResilient(backend, reg)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := orders.Place(context.Background(), "x")
		done <- err
	}()
	testkit.BlockUntil(t, clk, 1)
	clk.Advance(2 * time.Second)
	err = <-done
	require.ErrorIs(t, err, timeout.ErrCallTimeout)
	close(release)
	limit, _ := reg.AdaptiveLimit("orders")
	assert.Equal(t, int64(1), limit.Snapshot().Drops)
}

// A full limit rejects at once: the delegate is not called.
func TestRejectionDoesNotCallTheDelegate(t *testing.T) {
	_, reg := manual(t, r4c.WithProperties(map[string]string{
		"instances.orders.adaptiveLimit.initialLimit": "1",
		"instances.orders.adaptiveLimit.minLimit":     "1",
	}))
	backend := newOrders()
	entered, release := make(chan struct{}), make(chan struct{})
	backend.place = func(ctx context.Context, order string) (string, error) {
		if order == "slow" {
			close(entered)
			<-release
		}
		return "placed " + order, nil
	}
	orders, err := generate.NewOrderClientResilient(backend, reg)
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = orders.Place(context.Background(), "slow")
	}()
	<-entered
	_, err = orders.Place(context.Background(), "fast")
	require.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
	close(release)
	<-done
	assert.Equal(t, []string{"Place slow"}, backend.Calls())
	v, err := orders.Place(context.Background(), "again")
	require.NoError(t, err)
	assert.Equal(t, "placed again", v)
}

// Cancel's retry calls the delegate again, with the same argument, after
// its wait on the registry's clock.
func TestCancelIsRetried(t *testing.T) {
	clk, reg := manual(t)
	backend := newOrders()
	fails := 1
	backend.cancel = func(ctx context.Context, order string) error {
		if fails > 0 {
			fails--
			return errors.New("busy")
		}
		return nil
	}
	orders, err := generate.NewOrderClientResilient(backend, reg)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- orders.Cancel(context.Background(), "o-1") }()
	testkit.BlockUntil(t, clk, 1)
	clk.Advance(100 * time.Millisecond)
	require.NoError(t, <-done)
	assert.Equal(t, []string{"Cancel o-1", "Cancel o-1"}, backend.Calls())
}

// A method's own errors and results pass through unchanged.
func TestResultsAndErrorsPassThrough(t *testing.T) {
	_, reg := manual(t)
	search, err := generate.NewSearchClientResilient(catalogue{titles: []string{"go", "gopher", "java"}}, reg)
	require.NoError(t, err)
	hits, err := search.Search(context.Background(), "go")
	require.NoError(t, err)
	assert.Equal(t, []string{"go", "gopher"}, hits)
	_, err = search.Search(context.Background(), "")
	assert.ErrorIs(t, err, errEmptyQuery)
	got, more, err := search.Suggest(context.Background(), "go", 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"go"}, got)
	assert.True(t, more)
}

// The caller's ctx reaches the delegate, under the timeout's deadline.
func TestTheCallersCtxReachesTheDelegate(t *testing.T) {
	_, reg := manual(t)
	backend := newOrders()
	type key struct{}
	backend.place = func(ctx context.Context, order string) (string, error) {
		if _, ok := ctx.Deadline(); !ok {
			return "", errors.New("no deadline")
		}
		v, _ := ctx.Value(key{}).(string)
		return v, nil
	}
	orders, err := generate.NewOrderClientResilient(backend, reg)
	require.NoError(t, err)
	v, err := orders.Place(context.WithValue(context.Background(), key{}, "mine"), "x")
	require.NoError(t, err)
	assert.Equal(t, "mine", v)
}

func TestNilDelegate(t *testing.T) {
	_, reg := manual(t)
	_, err := generate.NewOrderClientResilient(nil, reg)
	var ce *r4c.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, r4c.CodeBuilder, ce.Code)
	assert.ErrorIs(t, err, r4c.ErrConfig)
}

func TestNilRegistry(t *testing.T) {
	_, err := generate.NewOrderClientResilient(newOrders(), nil)
	var ce *r4c.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, r4c.CodeBuilder, ce.Code)
}

// A name shared with another pipeline of another configuration fails the
// constructor with R4C-REG-008, as any builder would.
func TestSharedNameMismatchAtConstruction(t *testing.T) {
	_, reg := manual(t)
	_, err := pipeline.NewBuilder[int](reg, "other").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.Name = "orders"; c.MaxLimit = 7 }).
		Build()
	require.NoError(t, err)
	_, err = generate.NewOrderClientResilient(newOrders(), reg)
	var ce *r4c.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, r4c.CodeSharedMismatch, ce.Code)
	assert.Contains(t, ce.Rule, "initialLimit is 7 there and 10 here")
}

// Two wrappers of one interface in one registry share its instances: the
// ids are the interface's.
func TestTwoWrappersShareTheIds(t *testing.T) {
	_, reg := manual(t)
	one, err := generate.NewOrderClientResilient(newOrders(), reg)
	require.NoError(t, err)
	two, err := generate.NewOrderClientResilient(newOrders(), reg)
	require.NoError(t, err)
	f := one.PlaceAsync("a")
	limit, _ := reg.AdaptiveLimit("orders-async")
	assert.Equal(t, 1, limit.InFlight())
	g := two.PlaceAsync("b")
	assert.Equal(t, 2, limit.InFlight())
	f.Cancel()
	g.Cancel()
	assert.Zero(t, limit.InFlight())
}
