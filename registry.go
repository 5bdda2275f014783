package r4c

import (
	"errors"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/internal/engine"
	"github.com/resilience4cata/r4c/internal/kinds"
	"github.com/resilience4cata/r4c/internal/seam"
	"github.com/resilience4cata/r4c/policy"
)

// Registry holds the named policy instances of an application, their
// configuration (in code and from outside), the clock they read and the
// event bus they publish on. Pipelines are built against a Registry (see
// package pipeline); handles and snapshots are read from it.
//
// A Registry is safe for concurrent use. Building a pipeline takes the
// registry's lock; executing one never does.
type Registry struct {
	e *engine.Registry
}

// Option configures a Registry. Options are applied in order; for external
// sources a later option wins over an earlier one for the same key.
type Option interface {
	apply(*Registry) error
}

type optionFunc func(*Registry) error

func (f optionFunc) apply(r *Registry) error { return f(r) }

// NewRegistry returns a registry configured by opts. It reads every source
// and parses every external value once, runs every code layer once, and
// validates the defaults and every named configuration; it returns a
// *ConfigError (matching ErrConfig) on the first problem, and then no
// registry. An instance's own configuration is validated when a pipeline
// builds it.
func NewRegistry(opts ...Option) (*Registry, error) {
	r := &Registry{e: engine.New(kinds.All()...)}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(r); err != nil {
			return nil, export(err)
		}
	}
	if err := r.e.Check(); err != nil {
		return nil, export(err)
	}
	return r, nil
}

// WithClock makes every policy of the registry read time from clk
// (default: policy.System, the real clock). Tests pass a
// clocktest.ManualClock.
func WithClock(clk policy.Clock) Option {
	return optionFunc(func(r *Registry) error {
		if clk != nil {
			r.e.SetClock(clk)
		}
		return nil
	})
}

// Events returns the registry's event bus: every policy built against this
// registry publishes on it.
func (r *Registry) Events() *events.Bus { return r.e.Events() }

// Clock returns the clock the registry's policies read.
func (r *Registry) Clock() policy.Clock { return r.e.Clock() }

// UnusedKeys returns the external instance keys (instances.<id>.<kind>.<key>
// from a map or a file, R4C_INSTANCES_... from the environment), as given
// and sorted, that match no instance built so far: an id or a kind that no
// pipeline built, most often a typo. Call it, or [Registry.CheckUnusedKeys],
// once startup has built its pipelines; an instance built later uses its
// keys all the same.
func (r *Registry) UnusedKeys() []string { return r.e.UnusedKeys() }

// CheckUnusedKeys returns nil when every external instance key matches an
// instance built so far, and otherwise an R4C-REG-010 *ConfigError per
// unused key (joined with errors.Join when there are several), each naming
// the nearest id built of its kind ("did you mean"). Call it once startup
// has built its pipelines, and fail the startup on its error.
func (r *Registry) CheckUnusedKeys() error {
	errs := r.e.UnusedKeyErrors()
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return export(errs[0])
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = export(e)
	}
	return errors.Join(out...)
}

// The seam through which package pipeline builds in a transaction of the
// engine, without the engine being part of this package's API.
func init() {
	seam.Update = func(reg any, fn func(*engine.Tx) error) error {
		return export(reg.(*Registry).e.Update(fn))
	}
}
