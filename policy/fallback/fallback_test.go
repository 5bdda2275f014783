package fallback_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/fallback"
)

var (
	errDown  = errors.New("backend down")
	errOther = errors.New("other")
)

type fixture struct {
	f      *fallback.Fallback
	events []events.Event
}

func newFixture(t *testing.T, opts ...func(*fallback.Config)) *fixture {
	t.Helper()
	var cfg fallback.Config
	for _, o := range opts {
		o(&cfg)
	}
	fx := &fixture{}
	bus := &events.Bus{}
	t.Cleanup(bus.Subscribe(func(e events.Event) { fx.events = append(fx.events, e) }))
	f, err := fallback.New(cfg, policy.Env{Events: bus, Instance: "fb"})
	require.NoError(t, err)
	fx.f = f
	return fx
}

func stageOf[T any](t *testing.T, f *fallback.Fallback) policy.Link[T] {
	t.Helper()
	s, err := fallback.Stage[T](f)
	require.NoError(t, err)
	return s
}

func failing(err error) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return "inner", err }
}

func run(t *testing.T, f *fallback.Fallback, ctx context.Context, fn func(context.Context) (string, error)) (string, error) {
	t.Helper()
	v, _, err := stageOf[string](t, f).Run(ctx, policy.NewNext[string](nil, fn, nil))
	return v, err
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestHandles(t *testing.T) {
	isDown := func(err error) bool { return errors.Is(err, errDown) }
	rejected := &policy.RejectedError{Kind: "breaker", Err: errOther}
	bg := context.Background()
	for _, tc := range []struct {
		name string
		cfg  fallback.Config
		ctx  context.Context
		err  error
		want bool
	}{
		{"nil error", fallback.Config{}, bg, nil, false},
		{"default: any error", fallback.Config{}, bg, errDown, true},
		{"default: a rejection", fallback.Config{}, bg, rejected, true},
		{"default: a timeout", fallback.Config{}, bg, fmt.Errorf("call: %w", context.DeadlineExceeded), true},
		{"default: Canceled while the caller's ctx is live", fallback.Config{}, bg, context.Canceled, true},
		{"never the caller's cancellation", fallback.Config{}, cancelled(), fmt.Errorf("x: %w", context.Canceled), false},
		{"caller's ctx done, other error", fallback.Config{}, cancelled(), errDown, true},
		{"never a cancelled future", fallback.Config{}, bg, future.ErrCancelled, false},
		{"HandleOn match", fallback.Config{HandleOn: []error{io.EOF, errDown}}, bg, fmt.Errorf("w: %w", errDown), true},
		{"HandleOn miss", fallback.Config{HandleOn: []error{errDown}}, bg, errOther, false},
		{"HandleOn nil entry matches nothing", fallback.Config{HandleOn: []error{nil}}, bg, errOther, false},
		{"HandleIf match", fallback.Config{HandleIf: isDown}, bg, errDown, true},
		{"HandleIf miss", fallback.Config{HandleIf: isDown}, bg, errOther, false},
		{"HandleOn or HandleIf", fallback.Config{HandleOn: []error{io.EOF}, HandleIf: isDown}, bg, errDown, true},
		{"HandleOn never overrides the caller's cancellation", fallback.Config{HandleOn: []error{context.Canceled}}, cancelled(), context.Canceled, false},
		{"disabled", fallback.Config{Disabled: true}, bg, errDown, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := fallback.New(tc.cfg, policy.Env{})
			require.NoError(t, err)
			assert.Equal(t, tc.want, f.Handles(tc.ctx, tc.err))
		})
	}
}

func TestValueReplacesHandledError(t *testing.T) {
	fx := newFixture(t, fallback.Return("cached"))
	v, err := run(t, fx.f, context.Background(), failing(errDown))
	require.NoError(t, err)
	assert.Equal(t, "cached", v)
	assert.Equal(t, fallback.Snapshot{Calls: 1, Handled: 1}, fx.f.Handle().Snapshot())
	assert.Equal(t, []events.Event{events.FallbackUsed{Instance: "fb", Err: errDown}}, fx.events)
}

func TestSuccessAndUnhandledPassThrough(t *testing.T) {
	fx := newFixture(t, fallback.Return("cached"), func(c *fallback.Config) { c.HandleOn = []error{errDown} })
	v, err := run(t, fx.f, context.Background(), func(context.Context) (string, error) { return "fresh", nil })
	require.NoError(t, err)
	assert.Equal(t, "fresh", v)

	v, err = run(t, fx.f, context.Background(), failing(errOther))
	assert.ErrorIs(t, err, errOther)
	assert.Equal(t, "inner", v, "an unhandled outcome passes unchanged")
	assert.Equal(t, fallback.Snapshot{Calls: 2}, fx.f.Handle().Snapshot())
	assert.Empty(t, fx.events)
}

func TestCallerCancellationIsNeverHandled(t *testing.T) {
	fx := newFixture(t, fallback.Return("cached"))
	ctx := cancelled()
	_, err := run(t, fx.f, ctx, func(ctx context.Context) (string, error) { return "", ctx.Err() })
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, fx.f.Handle().Snapshot().Handled)
}

func TestNoValueNoFuncReturnsZero(t *testing.T) {
	fx := newFixture(t)
	v, err := run(t, fx.f, context.Background(), failing(errDown))
	require.NoError(t, err)
	assert.Equal(t, "", v)
	p, err := fallback.Do(context.Background(), fx.f, func(context.Context) (*int, error) { return new(int), errDown })
	require.NoError(t, err)
	assert.Nil(t, p)
}

func TestFuncTakesPrecedence(t *testing.T) {
	type key struct{}
	var gotErr error
	var gotCtx context.Context
	fx := newFixture(t, fallback.Return("value"), fallback.Call(func(ctx context.Context, err error) (string, error) {
		gotCtx, gotErr = ctx, err
		return "from func: " + err.Error(), nil
	}))
	ctx := context.WithValue(context.Background(), key{}, 1)
	v, err := run(t, fx.f, ctx, failing(errDown))
	require.NoError(t, err)
	assert.Equal(t, "from func: backend down", v)
	assert.Equal(t, errDown, gotErr)
	assert.Equal(t, 1, gotCtx.Value(key{}))
}

func TestFuncFailure(t *testing.T) {
	fx := newFixture(t, fallback.Call(func(context.Context, error) (string, error) { return "ignored", errOther }))
	v, err := run(t, fx.f, context.Background(), failing(errDown))
	assert.Equal(t, errOther, err, "the call fails with Func's error")
	assert.Equal(t, "", v)
	assert.Equal(t, fallback.Snapshot{Calls: 1, Handled: 1, FuncFailures: 1}, fx.f.Handle().Snapshot())
}

func TestFuncResultOfWrongType(t *testing.T) {
	fx := newFixture(t, func(c *fallback.Config) {
		c.Func = func(context.Context, error) (any, error) { return 42, nil }
	})
	_, err := run(t, fx.f, context.Background(), failing(errDown))
	var rte *fallback.ResultTypeError
	require.ErrorAs(t, err, &rte)
	assert.Equal(t, &fallback.ResultTypeError{Instance: "fb", Got: "int", Want: "string", Err: errDown}, rte)
	assert.ErrorIs(t, err, fallback.ErrResultType)
	assert.ErrorIs(t, err, errDown)
	assert.Equal(t, "r4c: fallback fb returned a int, want a string (handling: backend down)", err.Error())
	assert.Equal(t, "fb", rte.InstanceID())
	assert.Equal(t, int64(1), fx.f.Handle().Snapshot().FuncFailures)
}

func TestFuncNilResultIsZero(t *testing.T) {
	fx := newFixture(t, func(c *fallback.Config) {
		c.Func = func(context.Context, error) (any, error) { return nil, nil }
	})
	v, err := run(t, fx.f, context.Background(), failing(errDown))
	require.NoError(t, err)
	assert.Equal(t, "", v)
}

func TestStageRejectsValueOfWrongType(t *testing.T) {
	for _, cfg := range []fallback.Config{
		{Value: 42},
		{Value: int64(1), Func: func(context.Context, error) (any, error) { return "x", nil }},
	} {
		f, err := fallback.New(cfg, policy.Env{})
		require.NoError(t, err, "New cannot know the pipeline's type")
		l, err := fallback.Stage[string](f)
		assert.Nil(t, l)
		var fe *policy.FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, "value", fe.Key)
		assert.Equal(t, policy.ClassCombination, fe.Class)
		assert.Equal(t, fmt.Sprintf("%T", cfg.Value), fe.Value)
		assert.Equal(t, "must be a string, the pipeline's result type", fe.Rule)
		_, err = fallback.Do(context.Background(), f, failing(errDown))
		assert.ErrorAs(t, err, &fe)
	}
}

type named string

func (n named) String() string { return string(n) }

func TestValueOfInterfaceType(t *testing.T) {
	f, err := fallback.New(fallback.Config{Value: named("n")}, policy.Env{})
	require.NoError(t, err)
	v, err := fallback.Do(context.Background(), f, func(context.Context) (fmt.Stringer, error) { return nil, errDown })
	require.NoError(t, err)
	assert.Equal(t, "n", v.String())
	_, err = fallback.Stage[error](f)
	assert.Error(t, err, "named is not an error")
	_, err = fallback.Stage[named](f)
	assert.NoError(t, err)
}

func TestReturnAndCallSetTheFields(t *testing.T) {
	var c fallback.Config
	fallback.Return(7)(&c)
	assert.Equal(t, 7, c.Value)
	fallback.Call(func(context.Context, error) (int, error) { return 8, nil })(&c)
	require.NotNil(t, c.Func)
	v, err := c.Func(context.Background(), errDown)
	assert.Equal(t, 8, v)
	assert.NoError(t, err)
	fallback.Call[int](nil)(&c)
	assert.Nil(t, c.Func)
	assert.Equal(t, 7, c.Value)
}

// probe is an inner stage that records the start reading it gets and
// reports an end reading.
type probe struct{ start *policy.Stamp }

func (p probe) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	*p.start = next.Start
	v, _, err := next.Run(ctx)
	return v, policy.Stamp(9), err
}

func (p probe) RunAsync(ctx context.Context, next policy.AsyncNext[string]) *future.Future[string] {
	return next.Call(ctx)
}

func TestStampsPassThrough(t *testing.T) {
	for _, fn := range []func(context.Context) (string, error){failing(nil), failing(errDown)} {
		fx := newFixture(t, fallback.Return("x"))
		var start policy.Stamp
		next := policy.NewNext[string]([]policy.Link[string]{probe{&start}}, fn, nil).WithStart(5)
		_, st, _ := stageOf[string](t, fx.f).Run(context.Background(), next)
		assert.Equal(t, policy.Stamp(5), start, "the outer reading is shared")
		assert.Equal(t, policy.Stamp(9), st, "the inner end reading goes up")
	}
}

func TestDisabledPassesThrough(t *testing.T) {
	fx := newFixture(t, fallback.Return("x"), func(c *fallback.Config) { c.Disabled = true })
	_, err := run(t, fx.f, context.Background(), failing(errDown))
	assert.ErrorIs(t, err, errDown)
	assert.Equal(t, fallback.Snapshot{Disabled: true}, fx.f.Handle().Snapshot())
}

func TestPanicPassesThrough(t *testing.T) {
	fx := newFixture(t, fallback.Return("x"))
	assert.PanicsWithValue(t, "boom", func() {
		_, _ = run(t, fx.f, context.Background(), func(context.Context) (string, error) { panic("boom") })
	})
}

func TestConfig(t *testing.T) {
	on := []error{errDown}
	cfg := fallback.Config{Name: "n", HandleOn: on, Value: "v"}
	assert.Equal(t, cfg, cfg.WithDefaults())
	assert.NoError(t, cfg.Validate())
	f, err := fallback.New(cfg, policy.Env{})
	require.NoError(t, err)
	on[0] = errOther
	assert.Equal(t, []error{errDown}, f.Config().HandleOn, "New copies HandleOn")
	assert.False(t, f.Handles(context.Background(), errOther))
}
