package engine

import (
	"sort"
	"strings"
	"sync"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

// Registry is the engine of an r4c.Registry. Its sources and layers are
// added while NewRegistry runs, then Check validates them once; after that
// it is safe for concurrent use, and mu guards the instances.
type Registry struct {
	clock   policy.Clock
	bus     *events.Bus
	ext     []*entry
	sources []source
	stores  []storeAny
	byKind  map[any]storeAny

	mu       sync.Mutex // guards every store's instances and external values
	reloadMu sync.Mutex // serialises Reload
}

// New returns an engine for kinds, in the order given (the reference lists
// them in that order).
func New(kinds ...AnyKind) *Registry {
	r := &Registry{clock: policy.System, bus: &events.Bus{}, byKind: make(map[any]storeAny, len(kinds))}
	for _, k := range kinds {
		s := k.newStore()
		r.stores = append(r.stores, s)
		r.byKind[k] = s
	}
	return r
}

// SetClock makes every policy built from now on read clk.
func (r *Registry) SetClock(clk policy.Clock) { r.clock = clk }

// Clock returns the clock the policies read.
func (r *Registry) Clock() policy.Clock { return r.clock }

// Events returns the bus every policy publishes on.
func (r *Registry) Events() *events.Bus { return r.bus }

func storeOf[C any, I any](r *Registry, k *Kind[C, I]) (*store[C, I], error) {
	s, ok := r.byKind[k].(*store[C, I])
	if !ok {
		return nil, &Error{Code: Combination, Key: k.Name, Rule: "the registry has no " + k.Name + " kind"}
	}
	return s, nil
}

// AddDefaults adds a code layer to the defaults of kind k.
func AddDefaults[C any, I any](r *Registry, k *Kind[C, I], configure func(*C)) error {
	s, err := storeOf(r, k)
	if err != nil {
		return err
	}
	if configure != nil {
		s.defaults = append(s.defaults, configure)
	}
	return nil
}

// AddConfig adds a code layer to the named configuration name of kind k.
func AddConfig[C any, I any](r *Registry, k *Kind[C, I], name string, configure func(*C)) error {
	s, err := storeOf(r, k)
	if err != nil {
		return err
	}
	if strings.TrimSpace(name) == "" {
		return &Error{Code: Builder, Key: "name", Value: name, Rule: "a named configuration needs a non-empty name"}
	}
	if configure == nil {
		configure = func(*C) {}
	}
	s.configs[name] = append(s.configs[name], configure)
	return nil
}

// Check resolves and parses every external value, runs the code layers
// once, and validates the defaults and named configurations of every
// kind. NewRegistry calls it once, after its options.
func (r *Registry) Check() error {
	if err := r.checkEntries(); err != nil {
		return err
	}
	for _, s := range r.stores {
		if err := s.checkLayers(r); err != nil {
			return err
		}
	}
	return nil
}

// Lookup returns the instance of kind k with id, or an UnknownInstance
// error naming the nearest id.
func Lookup[C any, I any](r *Registry, k *Kind[C, I], id string) (I, error) {
	var zero I
	s, err := storeOf(r, k)
	if err != nil {
		return zero, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if in, ok := s.instances[id]; ok {
		return in.inst, nil
	}
	return zero, &Error{Code: UnknownInstance, Key: id,
		Rule: "no " + k.Name + " instance has this id" + suggestion(id, s.ids())}
}

// Instances returns read(inst) for every instance of kind k, by id. read
// runs under the registry's lock and must not call the registry.
func Instances[C any, I any, S any](r *Registry, k *Kind[C, I], read func(I) S) map[string]S {
	s, err := storeOf(r, k)
	if err != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := make(map[string]S, len(s.instances))
	for id, in := range s.instances {
		m[id] = read(in.inst)
	}
	return m
}

// UnusedKeys returns the external instance keys (as given: flat keys or
// variable names) that match no instance built so far, sorted.
func (r *Registry) UnusedKeys() []string {
	var keys []string
	for _, e := range r.unused() {
		keys = append(keys, e.key)
	}
	return keys
}

func (r *Registry) unused() []*entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*entry
	for _, e := range r.ext {
		if e.scope == scopeInstances && e.store != nil && !e.store.hasInstance(e) {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// UnusedKeyErrors returns one UnusedKey error for each key UnusedKeys
// returns, with the nearest id built of its kind.
func (r *Registry) UnusedKeyErrors() []*Error {
	var errs []*Error
	for _, e := range r.unused() {
		r.mu.Lock()
		ids := e.store.ids()
		r.mu.Unlock()
		if e.env {
			for i, id := range ids {
				ids[i] = normName(id)
			}
		}
		rule := "no " + e.store.kindName() + " instance has the id " + e.name + suggestion(e.name, ids)
		if len(ids) == 0 {
			rule += "; no " + e.store.kindName() + " instance is built"
		}
		errs = append(errs, &Error{Code: UnusedKey, Key: e.key, Value: e.value, Rule: rule})
	}
	return errs
}

// Reference renders the key tables of every kind as Markdown, for
// docs/configuration.md.
func (r *Registry) Reference() string {
	var b strings.Builder
	for _, s := range r.stores {
		s.reference(&b)
	}
	return b.String()
}
