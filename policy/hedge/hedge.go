package hedge

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

// Hedge is the core of a hedge: its configuration, clock, event bus and
// figures. A pipeline runs calls through it with [Stage]; [Do] runs one
// function through it directly. A Hedge is safe for concurrent use and
// holds no goroutine of its own: the goroutines of a call end when its
// attempts return. Make one with [New]; the zero value is not usable.
type Hedge struct {
	cfg      Config
	disabled bool
	delay    time.Duration
	attempts int // 1 + MaxHedged
	clock    policy.Clock
	bus      *events.Bus
	instance string

	calls   atomic.Uint64
	hedges  atomic.Uint64
	wins    atomic.Uint64
	stopped atomic.Uint64
}

// New returns a hedge configured by cfg, which New fills with the defaults
// first ([Config.WithDefaults]). Its time comes from env.ClockOrSystem(),
// its events go to env.Events, and env.Instance names it in events. An
// invalid configuration returns the [*policy.FieldError] of
// [Config.Validate], unwrapped, and a nil Hedge. New never panics.
func New(cfg Config, env policy.Env) (*Hedge, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Hedge{
		cfg:      cfg,
		disabled: cfg.Disabled,
		delay:    cfg.Delay,
		attempts: 1 + cfg.MaxHedged,
		clock:    env.ClockOrSystem(),
		bus:      env.Events,
		instance: env.Instance,
	}, nil
}

// Config returns the hedge's configuration, with the defaults filled in.
func (h *Hedge) Config() Config { return h.cfg }

// Handle returns a read-only view of the hedge's figures.
func (h *Hedge) Handle() *Handle { return &Handle{h: h} }

// Do runs fn through h: fn is called at once, and again (with a ctx of its
// own each time) every Delay while no attempt has succeeded, up to
// MaxHedged more times; the first success is returned and the other
// attempts' ctx is cancelled. See [Stage] for the whole behaviour. Do
// builds its stage on each call; a hot path should make a [Stage] once and
// use it through a pipeline.
func Do[T any](ctx context.Context, h *Hedge, fn func(context.Context) (T, error)) (T, error) {
	v, _, err := Stage[T](h).Run(ctx, policy.NewNext[T](nil, fn, nil))
	return v, err
}

// publishStarted reports that attempt (2 or more) started.
func (h *Hedge) publishStarted(ctx context.Context, attempt int) {
	if h.bus.Active() {
		h.bus.PublishContext(ctx, events.HedgeStarted{Instance: h.instance, Attempt: attempt})
	}
}
