package timeout

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

// Timeout bounds how long a call may take. It is the core of the policy,
// usable on its own through [Timeout.Run] or in a chain through [Stage].
//
// A Timeout is safe for concurrent use; one instance serves every call of
// every pipeline that shares it. It holds no per-call state and starts no
// goroutine of its own outside a call. Make one with [New]; the zero value
// is not usable.
type Timeout struct {
	cfg         Config // as built, defaults filled in; for the handle
	clock       policy.Clock
	bus         *events.Bus
	instance    string
	d           atomic.Int64 // the timeout in nanoseconds; a setter may change it
	mu          sync.Mutex   // serialises setters; guards cfg
	cooperative bool
	disabled    bool
	err         *CallTimeoutError

	timeouts atomic.Uint64

	unit *stage[struct{}] // serves Run
}

// New returns the timeout that cfg describes, with time from env's clock,
// events published on env.Events and errors naming env.Instance. cfg is
// defaulted with [Config.WithDefaults] and checked with [Config.Validate],
// whose [*policy.FieldError] New returns as it is. New never panics.
func New(cfg Config, env policy.Env) (*Timeout, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := &Timeout{
		cfg:         cfg,
		clock:       env.ClockOrSystem(),
		bus:         env.Events,
		instance:    env.Instance,
		cooperative: cfg.Cooperative,
		disabled:    cfg.Disabled,
		err:         newCallTimeoutError(env.Instance, cfg.Timeout),
	}
	t.d.Store(int64(cfg.Timeout))
	t.unit = newStage[struct{}](t)
	return t, nil
}

// Run calls fn under the timeout, in the configured mode, and returns fn's
// error or the [*CallTimeoutError] (see the package doc for each mode). It
// serves callers that do not use a pipeline; fn reports its result through
// variables it captures, which it must not touch after a timeout in the
// default mode unless they are safe for concurrent use (fn may still be
// running when Run returns).
//
// If ctx is done first, Run returns ctx's error (the caller's own
// cancellation is never a timeout). A panic in fn reaches the caller of Run.
func (t *Timeout) Run(ctx context.Context, fn func(context.Context) error) error {
	next := policy.NewNext[struct{}](nil, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, fn(ctx)
	}, nil)
	_, _, err := t.unit.Run(ctx, next)
	return err
}

// Duration returns the configured timeout.
func (t *Timeout) Duration() time.Duration { return time.Duration(t.d.Load()) }

// deadline returns the work's ctx: parent with a deadline Timeout from now
// on t's clock, so that it fires on a ManualClock and ctx.Deadline() reaches
// HTTP and gRPC calls. The caller must call cancel.
func (t *Timeout) deadline(parent context.Context) (context.Context, context.CancelFunc) {
	return t.clock.WithDeadline(parent, t.clock.Now().Add(time.Duration(t.d.Load())))
}

// ours reports whether the timeout fired for the work's ctx wctx made from
// the caller's ctx: wctx is done while ctx is not. When the caller's own
// ctx is done (cancelled, or its earlier deadline passed) the outcome is the
// caller's, never a timeout.
func ours(ctx, wctx context.Context) bool {
	return wctx.Err() != nil && ctx.Err() == nil
}

// timedOut counts a timeout and publishes it with the caller's ctx.
func (t *Timeout) timedOut(ctx context.Context) {
	t.timeouts.Add(1)
	if t.bus.Active() {
		t.bus.PublishContext(ctx, events.Timeout{Instance: t.instance, Timeout: t.Duration()})
	}
}
