package r4c

import (
	"slices"
	"sort"
	"sync"

	"github.com/resilience4cata/r4c/events"
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
	clock  policy.Clock
	bus    *events.Bus
	ext    *external
	mu     sync.Mutex // guards the instance maps of every store
	stores []kindStore

	adaptive  *adaptiveStore
	timeout   *timeoutStore
	bulkhead  *bulkheadStore
	ratelimit *ratelimitStore
	retry     *retryStore
	breaker   *breakerStore
	hedge     *hedgeStore
	fallback  *fallbackStore
}

// Option configures a Registry. Options are applied in order; for external
// sources a later option wins over an earlier one for the same key.
type Option interface {
	apply(*Registry) error
}

type optionFunc func(*Registry) error

func (f optionFunc) apply(r *Registry) error { return f(r) }

// WithClock makes every policy of the registry read time from clk
// (default: policy.System). Tests pass a clocktest.ManualClock.
func WithClock(clk policy.Clock) Option {
	return optionFunc(func(r *Registry) error {
		if clk != nil {
			r.clock = clk
		}
		return nil
	})
}

// NewRegistry returns a registry configured by opts. It checks every
// configuration given (code layers, external keys and values) and returns a
// *ConfigError (matching ErrConfig) on the first problem; then no registry is
// returned.
func NewRegistry(opts ...Option) (*Registry, error) {
	r := &Registry{clock: policy.System, bus: &events.Bus{}, ext: newExternal()}
	r.initStores()
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(r); err != nil {
			return nil, err
		}
	}
	if err := r.ext.check(r); err != nil {
		return nil, err
	}
	for _, s := range r.stores {
		if err := s.checkLayers(r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Events returns the registry's event bus: every policy built against this
// registry publishes on it.
func (r *Registry) Events() *events.Bus { return r.bus }

// Clock returns the clock the registry's policies read.
func (r *Registry) Clock() policy.Clock { return r.clock }

func (r *Registry) env(id string) policy.Env {
	return policy.Env{Clock: r.clock, Events: r.bus, Instance: id}
}

func (r *Registry) storeFor(kindKey string) kindStore {
	for _, s := range r.stores {
		if s.kindKey() == kindKey {
			return s
		}
		for _, a := range s.kindAliases() {
			if a == kindKey {
				return s
			}
		}
	}
	return nil
}

func (r *Registry) configNames(s kindStore) []string {
	names := r.ext.configNames(s.kindKey())
	names = append(names, s.codeConfigNames()...)
	sort.Strings(names)
	return slices.Compact(names)
}

func (s *store[C, I]) codeConfigNames() []string {
	names := make([]string, 0, len(s.configs))
	for n := range s.configs {
		names = append(names, n)
	}
	return names
}

// Tx is a registry transaction: the instances a pipeline builder resolves
// through it are registered together when the transaction's function
// returns nil, and not at all otherwise. Get one from [Registry.Update].
type Tx struct {
	r      *Registry
	staged []func() // registrations to run on commit
	seen   map[string]any
}

// Update runs fn with a transaction under the registry's lock. Instances
// resolved through tx become visible (to handles, snapshots and later
// builds) only if fn returns nil; if fn returns an error, none does, so a
// failed build never half-registers. fn must not call methods of the
// registry other than through tx.
func (r *Registry) Update(fn func(tx *Tx) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tx := &Tx{r: r, seen: map[string]any{}}
	if err := fn(tx); err != nil {
		return err
	}
	for _, commit := range tx.staged {
		commit()
	}
	return nil
}

// resolveIn returns the instance for (kind, id): an existing one if its
// configuration is the same, a new one staged in tx otherwise. r.mu is held.
func resolveIn[C any, I any](tx *Tx, s *store[C, I], pipeline string, configure func(*C)) (I, C, error) {
	var zero I
	id, cfg, err := s.resolve(tx.r, pipeline, configure)
	if err != nil {
		return zero, cfg, err
	}
	key := s.k.key + "\x00" + id
	if staged, ok := tx.seen[key].(*instance[C, I]); ok {
		if !sameConfig(staged.cfg, cfg) {
			return zero, cfg, mismatch(s.k.key, id)
		}
		return staged.inst, cfg, nil
	}
	if existing, ok := s.instances[id]; ok {
		if !sameConfig(existing.cfg, cfg) {
			return zero, cfg, mismatch(s.k.key, id)
		}
		return existing.inst, cfg, nil
	}
	inst, err := s.k.build(cfg, tx.r.env(id))
	if err != nil {
		if ce, ok := err.(*ConfigError); ok {
			return zero, cfg, ce
		}
		return zero, cfg, &ConfigError{Code: CodeCombination, Key: "instances." + id + "." + s.k.key, Rule: err.Error(), Err: err}
	}
	in := &instance[C, I]{cfg: cfg, inst: inst}
	tx.seen[key] = in
	tx.staged = append(tx.staged, func() { s.instances[id] = in })
	return inst, cfg, nil
}

func mismatch(kindKey, id string) error {
	return &ConfigError{Code: CodeSharedMismatch, Key: "instances." + id + "." + kindKey,
		Rule: "the shared name " + id + " is already used with a different configuration; every pipeline sharing it must resolve to the same one"}
}

// lookup returns the instance with id, or a REG-009 error naming the
// nearest known id.
func lookup[C any, I any](r *Registry, s *store[C, I], id string) (I, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if in, ok := s.instances[id]; ok {
		return in.inst, nil
	}
	var zero I
	return zero, &ConfigError{Code: CodeUnknownInstance, Key: id,
		Rule: "no " + s.k.key + " instance has this id" + suggestion(id, s.ids())}
}
