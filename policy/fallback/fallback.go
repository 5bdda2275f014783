package fallback

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

// Fallback is the core of a fallback: which errors it handles, its event
// bus and its figures. A pipeline runs calls through it with [Stage], which
// also knows what to return; [Fallback.Handles] serves code that uses the
// classification on its own. A Fallback is safe for concurrent use. Make
// one with [New]; the zero value is not usable.
type Fallback struct {
	cfg      Config
	disabled bool
	handleOn []error
	handleIf func(error) bool
	bus      *events.Bus
	instance string

	calls   atomic.Uint64
	handled atomic.Uint64
	failed  atomic.Uint64
}

// New returns a fallback configured by cfg (HandleOn is copied). Its events
// go to env.Events and env.Instance names it; a fallback reads no clock.
// New returns an error only if [Config.Validate] does, which it currently
// never does; it never panics.
func New(cfg Config, env policy.Env) (*Fallback, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.HandleOn = slices.Clone(cfg.HandleOn)
	return &Fallback{
		cfg:      cfg,
		disabled: cfg.Disabled,
		handleOn: cfg.HandleOn,
		handleIf: cfg.HandleIf,
		bus:      env.Events,
		instance: env.Instance,
	}, nil
}

// Config returns the fallback's configuration.
func (f *Fallback) Config() Config {
	c := f.cfg
	c.HandleOn = slices.Clone(c.HandleOn)
	return c
}

// Handle returns a read-only view of the fallback's figures.
func (f *Fallback) Handle() *Handle { return &Handle{f: f} }

// Handles reports whether the fallback would replace the outcome of a call
// made with ctx that failed with err: false for a nil err, for the caller's
// own cancellation ([policy.CallerCancelled]), for a cancelled future
// ([future.ErrCancelled]) and when the fallback is disabled; otherwise true
// if err matches HandleOn (errors.Is) or HandleIf, or if both are empty.
// It counts nothing and allocates nothing (unless HandleIf does).
func (f *Fallback) Handles(ctx context.Context, err error) bool {
	if err == nil || f.disabled || policy.CallerCancelled(ctx, err) || errors.Is(err, future.ErrCancelled) {
		return false
	}
	if len(f.handleOn) == 0 && f.handleIf == nil {
		return true
	}
	return policy.Matches(err, f.handleOn, f.handleIf)
}

// publishUsed reports that the fallback handled err.
func (f *Fallback) publishUsed(ctx context.Context, err error) {
	if f.bus.Active() {
		f.bus.PublishContext(ctx, events.FallbackUsed{Instance: f.instance, Err: err})
	}
}
