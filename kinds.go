package r4c

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/resilience4cata/r4c/policy"
)

// kind describes one policy kind to the registry: its flat-key name, its
// settings, and how to default, validate and build its Config. The
// registry's layering, sharing and error reporting are written once, here,
// for every kind.
type kind[C any, I any] struct {
	key      string   // flat-key segment, such as "adaptiveLimit"
	aliases  []string // other accepted segments, such as "circuitBreaker"
	fields   []field[C]
	defaults func(C) C
	validate func(C) error
	build    func(C, policy.Env) (I, error)
	names    func(*C) (name, base *string)
}

// store is what the registry holds for one kind: the code layers given to
// NewRegistry and the instances built so far.
type store[C any, I any] struct {
	k         *kind[C, I]
	defaults  []func(*C)
	configs   map[string][]func(*C)
	instances map[string]*instance[C, I]
}

type instance[C any, I any] struct {
	cfg  C
	inst I
}

func newStore[C any, I any](k *kind[C, I]) *store[C, I] {
	return &store[C, I]{k: k, configs: map[string][]func(*C){}, instances: map[string]*instance[C, I]{}}
}

// kindStore is the part of a store the registry uses without knowing C.
type kindStore interface {
	kindKey() string
	kindAliases() []string
	fieldKeys() []string
	// checkValue parses v for setting key, to report bad external values
	// when the registry is built.
	checkValue(fullKey, key, v string) error
	// checkLayers validates the defaults and every named configuration.
	checkLayers(r *Registry) error
	hasConfig(name string) bool
	codeConfigNames() []string
	ids() []string
}

func (s *store[C, I]) kindKey() string       { return s.k.key }
func (s *store[C, I]) kindAliases() []string { return s.k.aliases }

func (s *store[C, I]) fieldKeys() []string {
	keys := make([]string, 0, len(s.k.fields)+1)
	keys = append(keys, "baseConfig")
	for _, f := range s.k.fields {
		keys = append(keys, f.key)
	}
	return keys
}

func (s *store[C, I]) field(key string) *field[C] {
	for i := range s.k.fields {
		if s.k.fields[i].key == key {
			return &s.k.fields[i]
		}
	}
	return nil
}

func (s *store[C, I]) checkValue(fullKey, key, v string) error {
	if key == "baseConfig" {
		return nil
	}
	var c C
	return s.setErr(fullKey, s.field(key).set(&c, v), v)
}

// setErr wraps an error from a field setter into a coded ConfigError.
func (s *store[C, I]) setErr(fullKey string, err error, v string) error {
	if err == nil {
		return nil
	}
	var fe *policy.FieldError
	if errors.As(err, &fe) {
		return &ConfigError{Code: classCode(fe.Class), Key: fullKey, Value: v, Rule: fe.Rule, Err: err}
	}
	return &ConfigError{Code: syntaxCode(err), Key: fullKey, Value: v, Rule: err.Error(), Err: err}
}

func (s *store[C, I]) hasConfig(name string) bool {
	_, ok := s.configs[name]
	return ok
}

func (s *store[C, I]) ids() []string {
	ids := make([]string, 0, len(s.instances))
	for id := range s.instances {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// classCode maps the family of a broken rule to its code.
func classCode(c policy.Class) string {
	switch c {
	case policy.ClassBound:
		return CodeBoundBelowOne
	case policy.ClassOrder:
		return CodeBoundsOrder
	case policy.ClassDuration:
		return CodeNegativeDuration
	case policy.ClassCombination:
		return CodeCombination
	default:
		return CodeOutOfRange
	}
}

// applyCode runs a code layer on a fresh Config and copies what it set.
func applyCode[C any](c *C, layer []func(*C)) {
	for _, fn := range layer {
		var l C
		fn(&l)
		mergeSet(c, &l)
	}
}

// applyExternal sets the external values of one scope; they can set any
// value, zero included.
func (s *store[C, I]) applyExternal(r *Registry, c *C, scope, name string) error {
	for _, e := range r.ext.entries(scope, name, s.k.key) {
		if e.setting == "baseConfig" {
			_, base := s.k.names(c)
			*base = e.value
			continue
		}
		if err := s.field(e.setting).set(c, e.value); err != nil {
			return s.setErr(e.key, err, e.value)
		}
	}
	return nil
}

// validateAs defaults and validates c; a broken rule is reported with the
// code of its class, or with R4C-REG-001 when inCode.
func (s *store[C, I]) validateAs(c C, prefix string, inCode bool) (C, error) {
	d := s.k.defaults(c)
	if err := s.k.validate(d); err != nil {
		var fe *policy.FieldError
		if !errors.As(err, &fe) {
			return d, &ConfigError{Code: CodeCombination, Key: prefix, Rule: err.Error(), Err: err}
		}
		code := classCode(fe.Class)
		if inCode {
			code = CodeInvalidInCode
		}
		return d, &ConfigError{Code: code, Key: prefix + "." + fe.Key, Value: fe.Value, Rule: fe.Rule, Err: err}
	}
	return d, nil
}

func (s *store[C, I]) checkLayers(r *Registry) error {
	var c C
	applyCode(&c, s.defaults)
	if _, err := s.validateAs(c, "defaults."+s.k.key, true); err != nil {
		return err
	}
	if err := s.applyExternal(r, &c, scopeDefaults, ""); err != nil {
		return err
	}
	if _, err := s.validateAs(c, "defaults."+s.k.key, false); err != nil {
		return err
	}
	for _, n := range r.configNames(s) {
		nc := c
		codeOnly := c
		applyCode(&codeOnly, s.configs[n])
		if _, err := s.validateAs(codeOnly, "configs."+n+"."+s.k.key, true); err != nil {
			return err
		}
		applyCode(&nc, s.configs[n])
		if err := s.applyExternal(r, &nc, scopeConfigs, n); err != nil {
			return err
		}
		if _, err := s.validateAs(nc, "configs."+n+"."+s.k.key, false); err != nil {
			return err
		}
	}
	return nil
}

// resolve computes the configuration of the instance a builder asks for:
// built-in < defaults < named configuration < builder values < external
// instance values, external over code at each level. It returns the
// instance id and the defaulted, validated configuration.
func (s *store[C, I]) resolve(r *Registry, pipeline string, configure func(*C)) (string, C, error) {
	var zero C
	var b C
	if configure != nil {
		configure(&b)
	}
	bn, bb := s.k.names(&b)
	id := pipeline
	if *bn != "" {
		id = *bn
	}
	if err := checkID(id); err != nil {
		return "", zero, err
	}
	var c C
	applyCode(&c, s.defaults)
	if err := s.applyExternal(r, &c, scopeDefaults, ""); err != nil {
		return "", zero, err
	}
	base := *bb
	if ext, ok := r.ext.get(scopeInstances, id, s.k.key, "baseConfig"); ok {
		base = ext
	}
	if base != "" {
		if !s.hasConfig(base) && !r.ext.hasConfig(base, s.k.key) {
			return "", zero, &ConfigError{Code: CodeUnknownConfig, Key: "instances." + id + "." + s.k.key + ".baseConfig", Value: base,
				Rule: "names no " + s.k.key + " configuration" + suggestion(base, r.configNames(s))}
		}
		applyCode(&c, s.configs[base])
		if err := s.applyExternal(r, &c, scopeConfigs, base); err != nil {
			return "", zero, err
		}
	}
	mergeSet(&c, &b)
	if err := s.applyExternal(r, &c, scopeInstances, id); err != nil {
		return "", zero, err
	}
	// The resolved configuration records the instance id; how it was
	// reached (its BaseConfig) does not matter when two pipelines share it.
	n, bc := s.k.names(&c)
	*n, *bc = id, ""
	d, err := s.validateAs(c, "instances."+id+"."+s.k.key, false)
	if err != nil {
		return "", zero, err
	}
	return id, d, nil
}

func checkID(id string) error {
	if strings.TrimSpace(id) == "" {
		return &ConfigError{Code: CodeBuilder, Key: "name", Value: id, Rule: "an instance needs a non-empty name"}
	}
	return nil
}

func suggestion(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

func defaultsOption[C any, I any](sel func(*Registry) *store[C, I], configure func(*C)) Option {
	return optionFunc(func(r *Registry) error {
		if configure != nil {
			s := sel(r)
			s.defaults = append(s.defaults, configure)
		}
		return nil
	})
}

func configOption[C any, I any](sel func(*Registry) *store[C, I], name string, configure func(*C)) Option {
	return optionFunc(func(r *Registry) error {
		if err := checkID(name); err != nil {
			return err
		}
		s := sel(r)
		s.configs[name] = append(s.configs[name], func(c *C) {
			if configure != nil {
				configure(c)
			}
		})
		return nil
	})
}
