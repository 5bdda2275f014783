package main

import (
	"errors"
	"fmt"
	"go/token"
	"path/filepath"
	"slices"
	"strings"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
)

// kindSpec is what the directives of every level say about one kind for
// one method: the most specific value of each key.
type kindSpec struct {
	kind     kind
	settings []setting // one per key, in the table's order
	name     strSetting
	config   strSetting
	site     token.Position // the most specific directive of the kind
}

// instance returns the instance id the spec resolves to for a method whose
// pipeline is called id.
func (s *kindSpec) instance(id string) string {
	if s.name.set {
		return s.name.value
	}
	return id
}

// find returns the setting of the key at index i, or nil.
func (s *kindSpec) find(i int) *setting {
	for j := range s.settings {
		if s.settings[j].index == i {
			return &s.settings[j]
		}
	}
	return nil
}

// merge applies m's levels, most general first: at each level a
// //r4c:config sets every kind's configuration, then the level's
// directives override key by key.
func (m *method) merge() {
	by := map[kind]*kindSpec{}
	for _, lv := range m.levels {
		for _, lk := range lv.kinds {
			if by[lk.kind] == nil {
				by[lk.kind] = &kindSpec{kind: lk.kind}
			}
		}
	}
	for _, lv := range m.levels {
		if lv.config.set {
			for _, s := range by {
				s.config = lv.config
			}
		}
		for _, lk := range lv.kinds {
			s := by[lk.kind]
			s.site = lk.pos
			if lk.name.set {
				s.name = lk.name
			}
			if lk.config.set {
				s.config = lk.config
			}
			for _, set := range lk.settings {
				if p := s.find(set.index); p != nil {
					*p = set
				} else {
					s.settings = append(s.settings, set)
				}
			}
		}
	}
	m.specs = nil
	for _, k := range kinds {
		if s := by[k]; s != nil {
			slices.SortFunc(s.settings, func(a, b setting) int { return a.index - b.index })
			m.specs = append(m.specs, s)
		}
	}
}

// user is the first method that uses a shared instance.
type user struct {
	it   *iface
	m    *method
	spec *kindSpec
}

func (u user) where() string {
	return fmt.Sprintf("%s.%s, %s:%d", u.it.name, u.m.name, filepath.Base(u.spec.site.Filename), u.spec.site.Line)
}

// check builds what the generated code will build, in a registry of its
// own with the built-in defaults and an empty configuration for each name
// a directive gives: each value is checked by the registry's own rules,
// and methods that share an instance must resolve to one configuration
// (R4C-REG-008), as NewXResilient will require in the real registry. Those
// rules also depend on the registry's defaults and configurations, which
// only exist when the program runs: the constructor checks again.
func check(its []*iface, ds *diags) {
	var opts []r4c.Option
	named := map[string]bool{}
	for _, it := range its {
		for _, m := range it.methods {
			for _, s := range m.specs {
				if key := s.kind.Name() + "/" + s.config.value; s.config.set && !named[key] {
					named[key] = true
					opts = append(opts, s.kind.Config(s.config.value))
				}
			}
		}
	}
	reg, err := r4c.NewRegistry(opts...)
	if err != nil {
		ds.errorf(token.Position{}, codeUsage, "cannot check the directives: %v", err)
		return
	}
	first := map[string]user{}
	for _, it := range its {
		for _, m := range it.methods {
			if m.sig == nil {
				continue
			}
			for _, s := range m.specs {
				id := s.instance(m.id)
				key := s.kind.Name() + "/" + id
				u, shared := first[key]
				if !shared {
					u = user{it: it, m: m, spec: s}
					first[key] = u
				} else if u.spec.config.value != s.config.value {
					ds.add(diag{pos: s.site, code: r4c.CodeSharedMismatch, key: keyName, value: id,
						rule: fmt.Sprintf("the shared instance %s starts from %s there (%s) and from %s here; "+
							"every method sharing it must name the same configuration",
							id, configText(u.spec.config), u.where(), configText(s.config))})
					continue
				}
				_, err := s.kind.Add(pipeline.NewBuilder[any](reg, m.id), s).Build()
				if err != nil {
					report(ds, err, s, id, it.name+"."+m.name, u, shared)
				}
			}
		}
	}
}

func configText(c strSetting) string {
	if !c.set {
		return "no named configuration"
	}
	return "configuration " + c.value
}

// report turns the registry's error for spec s into a diagnostic at the
// directive that set the key.
func report(ds *diags, err error, s *kindSpec, id, here string, first user, shared bool) {
	var ce *r4c.ConfigError
	if !errors.As(err, &ce) {
		ds.errorf(s.site, codeUsage, "%s: %v", s.kind.Name(), err)
		return
	}
	d := diag{pos: s.site, code: ce.Code, rule: ce.Rule}
	name := ce.Key[strings.LastIndexByte(ce.Key, '.')+1:]
	if i := indexOf(s.kind.Keys(), name); i >= 0 && strings.HasSuffix(ce.Key, "."+s.kind.Name()+"."+name) {
		d.key, d.value = name, ce.Value
		if set := s.find(i); set != nil {
			d.pos, d.value = set.pos, set.text
		}
	}
	if ce.Code == r4c.CodeSharedMismatch {
		d.key, d.value = keyName, id
		if shared {
			d.rule += " (here: " + here + "; the first method to use it: " + first.where() + ")"
		}
	}
	ds.add(d)
}
