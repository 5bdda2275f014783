package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/resilience4cata/r4c/policy"
)

// Tx is a registry transaction: the instances resolved through it are
// registered together when the transaction's function returns nil, and not
// at all otherwise. Get one from [Registry.Update].
type Tx struct {
	r      *Registry
	staged []func() // registrations to run on commit
	seen   map[txKey]any
}

type txKey struct {
	s  storeAny
	id string
}

// Update runs fn with a transaction under the registry's lock. Instances
// resolved through tx become visible (to lookups, snapshots and later
// builds) only if fn returns nil. fn must not call the registry other than
// through tx.
func (r *Registry) Update(fn func(tx *Tx) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	tx := &Tx{r: r, seen: map[txKey]any{}}
	if err := fn(tx); err != nil {
		return err
	}
	for _, commit := range tx.staged {
		commit()
	}
	return nil
}

// Resolve returns the core of kind k for a pipeline called pipeline,
// configured by configure (which may be nil): an existing instance with
// the same id if its configuration is the same, a new one staged in tx
// otherwise.
//
// The configuration is, lowest first: built-in defaults, the registry's
// defaults (code, then external), the named configuration the instance
// starts from (code, then external), the builder's values, the external
// instance values.
//
// An instance is shared when the builder sets Config.Name, or when an
// instance with its id exists already (built before, or earlier in tx). A
// shared instance is compared with the existing one by the values of its
// keys and by where its code-only fields came from; a builder that sets a
// code-only field of a shared instance is refused (SharedMismatch), since
// funcs and lists cannot be compared.
func Resolve[C any, I any](tx *Tx, k *Kind[C, I], pipeline string, configure func(*C)) (I, error) {
	var zero I
	s, err := storeOf(tx.r, k)
	if err != nil {
		return zero, err
	}
	t := k.Keys
	var b C
	if configure != nil {
		configure(&b)
	}
	id := pipeline
	if n := *t.Name(&b); n != "" {
		id = n
	}
	if strings.TrimSpace(id) == "" {
		return zero, &Error{Code: Builder, Key: "name", Value: id, Rule: "an instance needs a non-empty name"}
	}
	prefix := scopeInstances + "." + id + "." + k.Name
	if err := t.CheckZeroes(&b); err != nil {
		var ze *policy.ZeroError
		errors.As(err, &ze)
		return zero, &Error{Code: Builder, Key: prefix, Value: ze.Name, Rule: ze.Error(), Err: err}
	}

	key := txKey{s, id}
	existing, _ := tx.seen[key].(*instance[C, I])
	if existing == nil {
		existing = s.instances[id]
	}
	if *t.Name(&b) != "" || existing != nil {
		why := "its Config.Name is set"
		if *t.Name(&b) == "" {
			why = "a pipeline built it before"
		}
		if err := s.builderSetsCode(&b, pipeline, id, why); err != nil {
			return zero, err
		}
	}

	bl := builderLayer[C]{pipeline: pipeline, b: b}
	c, res, err := s.resolveFor(id, bl)
	if err != nil {
		return zero, err
	}
	d := k.Defaults(c)
	if existing != nil {
		if err := s.same(existing, d, res, id); err != nil {
			return zero, err
		}
		tx.staged = append(tx.staged, func() { existing.builders = append(existing.builders, bl) })
		return existing.inst, nil
	}
	inst, err := k.Build(c, policy.Env{Clock: tx.r.clock, Events: tx.r.bus, Instance: id})
	if err != nil {
		return zero, s.errorFor(err, res, prefix, id)
	}
	in := &instance[C, I]{cfg: d, inst: inst, res: res, builders: []builderLayer[C]{bl}}
	tx.seen[key] = in
	tx.staged = append(tx.staged, func() { s.instances[id] = in })
	return inst, nil
}

// resolveFor returns the configuration of instance id as the builder layer
// bl sees it, before defaults, with where each key came from: the
// registry's defaults, the named configuration it starts from, the
// builder's values, the external instance values.
func (s *store[C, I]) resolveFor(id string, bl builderLayer[C]) (C, *resolution, error) {
	t := s.k.Keys
	prefix := scopeInstances + "." + id + "." + s.k.Name
	b := bl.b
	c, res := s.lower()
	base, baseKey := *t.BaseConfig(&b), prefix+"."+baseConfigKey
	for _, x := range s.ext {
		if x.e.index == -1 && x.e.names(scopeInstances, id) {
			base, baseKey = x.e.value, x.e.key
		}
	}
	if base != "" {
		if !s.hasConfig(base) {
			return c, res, &Error{Code: UnknownConfig, Key: baseKey, Value: base,
				Rule: "names no " + s.k.Name + " configuration" + suggestion(base, s.configNames())}
		}
		s.applyConfig(&c, res, base)
	}
	s.mergeCode(&c, &b, res, origin{layer: "the builder of pipeline " + bl.pipeline})
	s.applyScope(&c, res, scopeInstances, id)
	// The resolved configuration records the instance id; how it was
	// reached (its BaseConfig) shows in res.
	*t.Name(&c), *t.BaseConfig(&c) = id, ""
	return c, res, nil
}

// builderSetsCode refuses a builder that sets a code-only field of a
// shared instance.
func (s *store[C, I]) builderSetsCode(b *C, pipeline, id, why string) error {
	var set, all []string
	for _, f := range s.k.Keys.Code() {
		all = append(all, f.Name)
		if f.IsSet(b) {
			set = append(set, f.Name)
		}
	}
	if len(set) == 0 {
		return nil
	}
	return &Error{Code: SharedMismatch, Key: scopeInstances + "." + id + "." + s.k.Name,
		Rule: fmt.Sprintf("%s is set in the builder of pipeline %s, but instance %s is shared (%s); "+
			"a shared instance is compared by its key values and funcs and lists cannot be compared, so its %s must come from "+
			"a named configuration or the defaults: define them with r4c.With%sConfig(\"<name>\", ...) and set BaseConfig = \"<name>\" "+
			"in every builder that shares %s", strings.Join(set, ", "), pipeline, id, why, strings.Join(all, ", "), s.k.Option, id)}
}

// same reports a mismatch between an existing shared instance and the
// defaulted configuration d resolved for it: the first key whose value
// differs, or the first code-only field that comes from another layer.
func (s *store[C, I]) same(existing *instance[C, I], d C, res *resolution, id string) error {
	t := s.k.Keys
	var diff string
	for i := range t.Len() {
		k := t.At(i)
		if k.Value(&existing.cfg) != k.Value(&d) {
			diff = fmt.Sprintf("%s is %s there and %s here", k.Name, k.Format(&existing.cfg), k.Format(&d))
			break
		}
	}
	if diff == "" {
		for j, f := range t.Code() {
			there, here := existing.res.code[j].layer, res.code[j].layer
			if there != here {
				diff = fmt.Sprintf("%s comes from %s there and %s here", f.Name, describe(there), describe(here))
				break
			}
		}
	}
	if diff == "" {
		return nil
	}
	return &Error{Code: SharedMismatch, Key: scopeInstances + "." + id + "." + s.k.Name,
		Rule: "the shared instance " + id + " is already used with a different configuration: " + diff +
			"; every pipeline sharing it must resolve to the same one (the same values, or one named configuration: r4c.With" +
			s.k.Option + "Config and BaseConfig)"}
}

func describe(layer string) string {
	if layer == "" {
		return "no layer (not set)"
	}
	return layer
}
