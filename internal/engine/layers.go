package engine

import (
	"errors"
	"sort"

	"github.com/resilience4cata/r4c/policy"
)

// origin says which layer set a key or a code-only field of a resolved
// configuration.
type origin struct {
	layer string // "defaults", "configs.<name>" or "the builder of pipeline <p>"; "" for none (built-in)
	code  bool   // a registry option in code set it
	ext   *entry // an external entry set it (its key and text as given)
}

// resolution is where each key (by table index) and each code-only field
// of a configuration came from.
type resolution struct {
	keys []origin
	code []origin
}

func (s *store[C, I]) newResolution() *resolution {
	return &resolution{keys: make([]origin, s.k.Keys.Len()), code: make([]origin, len(s.k.Keys.Code()))}
}

// markZero records in c that key name is zero on purpose, so that
// WithDefaults keeps it zero.
func markZero[C any](t *policy.Table[C], c *C, name string) {
	if name == policy.EnabledKeyName {
		t.Zeroes(c).Enable()
		return
	}
	t.Zeroes(c).Add(name)
}

// mergeCode applies the code layer l over c: every key l sets (not zero,
// or given to SetZero) and every code-only field it sets. What l leaves
// zero is not set at its level.
func (s *store[C, I]) mergeCode(c, l *C, res *resolution, o origin) {
	t := s.k.Keys
	lz := t.Zeroes(l)
	for i := range t.Len() {
		k := t.At(i)
		switch {
		case !k.IsZero(l):
			k.Copy(c, l)
			t.Zeroes(c).Remove(k.Name)
		case lz.Has(k.Name):
			k.Zero(c)
			markZero(t, c, k.Name)
		default:
			continue
		}
		res.keys[i] = o
	}
	for j, f := range t.Code() {
		if f.IsSet(l) {
			f.Copy(c, l)
			res.code[j] = o
		}
	}
}

// applyExternal applies the external value x over c: it sets exactly what
// it says, zero included.
func (s *store[C, I]) applyExternal(c *C, x *extValue[C], res *resolution) {
	t := s.k.Keys
	k := t.At(x.e.index)
	k.Copy(c, &x.val)
	if k.IsZero(&x.val) {
		markZero(t, c, k.Name)
	} else {
		t.Zeroes(c).Remove(k.Name)
	}
	res.keys[x.e.index] = origin{ext: x.e}
}

// applyScope applies the external values of scope for name, in the order
// given (baseConfig entries aside).
func (s *store[C, I]) applyScope(c *C, res *resolution, scope, name string) {
	for i := range s.ext {
		if x := &s.ext[i]; x.e.index >= 0 && x.e.names(scope, name) {
			s.applyExternal(c, x, res)
		}
	}
}

// lower returns the configuration every instance starts from: the code
// defaults, then the external defaults.
func (s *store[C, I]) lower() (C, *resolution) {
	var c C
	res := s.newResolution()
	for i := range s.defaultLayers {
		s.mergeCode(&c, &s.defaultLayers[i], res, origin{layer: scopeDefaults, code: true})
	}
	s.applyScope(&c, res, scopeDefaults, "")
	return c, res
}

// applyConfig applies the named configuration name over c: its code layers,
// then its external values.
func (s *store[C, I]) applyConfig(c *C, res *resolution, name string) {
	layers := s.configLayers[name]
	for i := range layers {
		s.mergeCode(c, &layers[i], res, origin{layer: scopeConfigs + "." + name, code: true})
	}
	s.applyScope(c, res, scopeConfigs, name)
}

// runLayer runs a registry option's closure once on a zero Config and
// checks what only a builder may set.
func (s *store[C, I]) runLayer(fn func(*C), prefix string) (C, error) {
	var l C
	fn(&l)
	t := s.k.Keys
	if err := t.CheckZeroes(&l); err != nil {
		var ze *policy.ZeroError
		errors.As(err, &ze)
		return l, &Error{Code: InvalidInCode, Key: prefix, Value: ze.Name, Rule: ze.Error(), Err: err}
	}
	if n := *t.Name(&l); n != "" {
		return l, &Error{Code: InvalidInCode, Key: prefix, Value: n,
			Rule: "Config.Name is set only in a builder closure, where it names the instance a pipeline uses; a registry option cannot set it"}
	}
	if b := *t.BaseConfig(&l); b != "" {
		return l, &Error{Code: InvalidInCode, Key: prefix, Value: b,
			Rule: "Config.BaseConfig is set only in a builder closure (or as instances.<id>.<kind>.baseConfig): defaults and named configurations cannot start from another configuration"}
	}
	return l, nil
}

// checkLayers runs the code layers once and validates the defaults and
// every named configuration, each over the defaults, so that NewRegistry
// reports a bad layer before any pipeline uses it.
func (s *store[C, I]) checkLayers(r *Registry) error {
	defaultsKey := scopeDefaults + "." + s.k.Name
	for _, fn := range s.defaults {
		l, err := s.runLayer(fn, defaultsKey)
		if err != nil {
			return err
		}
		s.defaultLayers = append(s.defaultLayers, l)
	}
	s.configLayers = make(map[string][]C, len(s.configs))
	names := make([]string, 0, len(s.configs))
	for n := range s.configs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, fn := range s.configs[n] {
			l, err := s.runLayer(fn, scopeConfigs+"."+n+"."+s.k.Name)
			if err != nil {
				return err
			}
			s.configLayers[n] = append(s.configLayers[n], l)
		}
	}

	return s.validateLayers()
}

// validateLayers validates the defaults and every named configuration,
// each over the defaults, with the external values of the moment.
func (s *store[C, I]) validateLayers() error {
	defaultsKey := scopeDefaults + "." + s.k.Name
	c, res := s.lower()
	if err := s.validate(c, res, defaultsKey, ""); err != nil {
		return err
	}
	for _, n := range s.configNames() {
		nc, nres := s.lower()
		s.applyConfig(&nc, nres, n)
		if err := s.validate(nc, nres, scopeConfigs+"."+n+"."+s.k.Name, ""); err != nil {
			return err
		}
	}
	// Named configurations given only by environment variables, whose
	// names are normalised.
	seen := map[string]bool{}
	for _, x := range s.ext {
		e := x.e
		if e.scope != scopeConfigs || !e.env || seen[e.name] || s.namedElsewhere(e.name) {
			continue
		}
		seen[e.name] = true
		nc, nres := s.lower()
		for i := range s.ext {
			if y := &s.ext[i]; y.e.index >= 0 && y.e.env && y.e.scope == scopeConfigs && y.e.name == e.name {
				s.applyExternal(&nc, y, nres)
			}
		}
		if err := s.validate(nc, nres, scopeConfigs+"."+e.name+"."+s.k.Name, ""); err != nil {
			return err
		}
	}
	return nil
}

// namedElsewhere reports whether a configuration named in code or in a
// map or file normalises to the environment name env.
func (s *store[C, I]) namedElsewhere(env string) bool {
	for _, n := range s.configNames() {
		if normName(n) == env {
			return true
		}
	}
	return false
}

// validate defaults and validates c, reporting a broken rule against the
// layer that set the key: see errorFor.
func (s *store[C, I]) validate(c C, res *resolution, prefix, id string) error {
	if err := s.k.Validate(s.k.Defaults(c)); err != nil {
		return s.errorFor(err, res, prefix, id)
	}
	return nil
}

// errorFor turns an error of Validate or New into a coded error. A
// FieldError names a key: when an external value set it, the error gives
// that key and text as given; when a registry option in code set it, the
// code is InvalidInCode under that option's layer; otherwise (a builder, or
// a default) the code of the rule's class, under prefix. id, when not empty, is the instance
// being built, added to the rule when the key was set below it.
func (s *store[C, I]) errorFor(err error, res *resolution, prefix, id string) error {
	var fe *policy.FieldError
	if errors.As(err, &fe) {
		var o origin
		if i := s.k.Keys.Index(fe.Key); i >= 0 {
			o = res.keys[i]
		}
		rule := fe.Rule
		if id != "" && (o.code || o.ext != nil && o.ext.scope != scopeInstances) {
			rule += " (building instance " + id + ")"
		}
		switch {
		case o.ext != nil:
			return &Error{Code: ClassCode(fe.Class), Key: o.ext.key, Value: o.ext.value, Rule: rule, Err: err}
		case o.code:
			// The registry option that set it: defaults.<kind>.<key> or
			// configs.<name>.<kind>.<key>.
			return &Error{Code: InvalidInCode, Key: o.layer + "." + s.k.Name + "." + fe.Key, Value: fe.Value, Rule: rule, Err: err}
		default:
			return &Error{Code: ClassCode(fe.Class), Key: prefix + "." + fe.Key, Value: fe.Value, Rule: rule, Err: err}
		}
	}
	var ze *policy.ZeroError
	if errors.As(err, &ze) {
		return &Error{Code: InvalidInCode, Key: prefix, Value: ze.Name, Rule: ze.Error(), Err: err}
	}
	return &Error{Code: Combination, Key: prefix, Rule: err.Error(), Err: err}
}
