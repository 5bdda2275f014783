package engine

import (
	"slices"
	"sort"
	"strings"

	"github.com/resilience4cata/r4c/policy"
)

// Kind describes one policy kind to the engine: its flat-key name, its key
// table, and how to default, validate and build its Config C into its core
// I. Package r4c declares the eight kinds; the engine is written once for
// all of them.
type Kind[C any, I any] struct {
	// Name is the kind's segment in a flat key, such as "adaptiveLimit".
	Name string
	// Aliases are other accepted segments, such as "circuitBreaker".
	Aliases []string
	// Option is the kind's name in the registry's options, such as
	// "AdaptiveLimit" in WithAdaptiveLimitConfig; messages name them.
	Option string
	// Keys is the kind's key table (policy/<kind>/keys.go).
	Keys *policy.Table[C]
	// Defaults is the Config's WithDefaults.
	Defaults func(C) C
	// Validate is the Config's Validate.
	Validate func(C) error
	// Build is the policy's New: it defaults, validates and builds.
	Build func(C, policy.Env) (I, error)
	// Current returns a running instance's configuration (its handle's
	// Config), with the changes of its setters.
	Current func(I) C
	// Update changes a running instance's configuration with fn, as one
	// change (its handle's Update): the live keys that differ apply.
	Update func(I, func(*C)) error
}

// AnyKind is a Kind of any Config, for New.
type AnyKind interface {
	newStore() storeAny
}

func (k *Kind[C, I]) newStore() storeAny {
	return &store[C, I]{k: k, configs: map[string][]func(*C){}, instances: map[string]*instance[C, I]{}}
}

// store is what the registry holds for one kind: the code layers given to
// NewRegistry (as closures, then as the Configs they made), the external
// values parsed, and the instances built so far.
type store[C any, I any] struct {
	k        *Kind[C, I]
	defaults []func(*C)
	configs  map[string][]func(*C)

	// Made by checkLayers: each closure run once on a zero Config.
	defaultLayers []C
	configLayers  map[string][]C

	ext       []extValue[C] // the kind's external values, in the order given
	instances map[string]*instance[C, I]
}

// extValue is one external entry of a kind, its text parsed into val.
type extValue[C any] struct {
	e   *entry
	val C // holds the parsed value in the key's field; zero for baseConfig
}

type instance[C any, I any] struct {
	cfg  C // defaulted
	inst I
	res  *resolution
	// builders are the builder layers of the pipelines that use the
	// instance, for Reload to resolve it again.
	builders []builderLayer[C]
}

// builderLayer is what a pipeline's builder closure set for an instance.
type builderLayer[C any] struct {
	pipeline string
	b        C
}

// storeAny is the part of a store the registry uses without knowing C.
type storeAny interface {
	kindName() string
	hasAlias(eq func(string) bool) bool
	addEntry(e *entry) error
	checkLayers(r *Registry) error
	plan(r *Registry, entries []*entry) (*storePlan, error)
	hasInstance(e *entry) bool
	ids() []string
	reference(b *strings.Builder)
}

func (s *store[C, I]) kindName() string { return s.k.Name }

func (s *store[C, I]) hasAlias(eq func(string) bool) bool {
	return slices.ContainsFunc(s.k.Aliases, eq)
}

// keyNames returns the kind's external keys: baseConfig, then the table's.
func (s *store[C, I]) keyNames() []string {
	return append([]string{baseConfigKey}, s.k.Keys.Names()...)
}

// addEntry resolves e's key, parses its value and adds it to the kind's
// external values.
func (s *store[C, I]) addEntry(e *entry) error {
	x, err := s.parseEntry(e)
	if err != nil {
		return err
	}
	s.ext = append(s.ext, x)
	return nil
}

// parseEntry resolves e's key and parses its value.
func (s *store[C, I]) parseEntry(e *entry) (extValue[C], error) {
	t := s.k.Keys
	e.index = -2
	for i, n := range s.keyNames() {
		if n == e.rawKey || e.env && strings.EqualFold(n, e.rawKey) {
			e.index = i - 1
		}
	}
	x := extValue[C]{e: e}
	switch {
	case e.index == -2:
		return x, &Error{Code: UnknownKey, Key: e.key, Value: e.value,
			Rule: s.k.Name + " has no key " + e.rawKey + suggestion(e.rawKey, s.keyNames())}
	case e.index == -1 && e.scope != scopeInstances:
		return x, &Error{Code: UnknownKey, Key: e.key, Value: e.value,
			Rule: "baseConfig may appear only as instances.<id>.<kind>.baseConfig: defaults and named configurations cannot start from another configuration"}
	}
	if e.index >= 0 {
		if err := t.At(e.index).Set(&x.val, e.value); err != nil {
			return x, s.valueError(err, e)
		}
	}
	return x, nil
}

// valueError reports err, a key's syntax error or a rule broken, against
// the external entry e: its key and text as given.
func (s *store[C, I]) valueError(err error, e *entry) error {
	code, rule := Combination, err.Error()
	if fe, ok := err.(*policy.FieldError); ok {
		code, rule = ClassCode(fe.Class), fe.Rule
	}
	return &Error{Code: code, Key: e.key, Value: e.value, Rule: rule, Err: err}
}

// configNames returns the names of the kind's named configurations: given
// in code or in a map or file (an environment variable's name is
// normalised, so it only adds to a configuration named elsewhere, or is
// found by normalising the name asked for).
func (s *store[C, I]) configNames() []string {
	names := make([]string, 0, len(s.configs))
	for n := range s.configs {
		names = append(names, n)
	}
	for _, x := range s.ext {
		if x.e.scope == scopeConfigs && !x.e.env {
			names = append(names, x.e.name)
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// hasConfig reports whether a named configuration called name exists.
func (s *store[C, I]) hasConfig(name string) bool {
	if _, ok := s.configs[name]; ok {
		return true
	}
	for _, x := range s.ext {
		if x.e.names(scopeConfigs, name) {
			return true
		}
	}
	return false
}

func (s *store[C, I]) ids() []string {
	ids := make([]string, 0, len(s.instances))
	for id := range s.instances {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// hasInstance reports whether an instance e names was built. r.mu is held.
func (s *store[C, I]) hasInstance(e *entry) bool {
	if !e.env {
		_, ok := s.instances[e.name]
		return ok
	}
	for id := range s.instances {
		if normName(id) == e.name {
			return true
		}
	}
	return false
}
