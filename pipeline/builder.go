package pipeline

import (
	"strconv"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// Builder collects the policies of one pipeline. Each method names a policy
// kind and takes a function that configures it (nil for the layered
// configuration alone); calling a method again for the same kind adds to its
// configuration. The order of the calls does not matter: see the package
// doc for the fixed order. A Builder is not safe for concurrent use and
// builds once.
type Builder[T any] struct {
	reg   *r4c.Registry
	name  string
	built bool

	adaptive    []func(*adaptivelimit.Config)
	hasAdaptive bool

	custom []policy.Policy[T]

	// tap, set by tests, wraps each link as it is placed in the chain.
	tap func(kind string, l policy.Link[T]) policy.Link[T]
}

// NewBuilder starts a pipeline called name, built against reg. The name is
// the default instance id of the pipeline's policies (a policy's
// Config.Name overrides it) and the id that external instance keys and
// handles use.
func NewBuilder[T any](reg *r4c.Registry, name string) *Builder[T] {
	return &Builder[T]{reg: reg, name: name}
}

// AdaptiveLimit adds the adaptive limit.
func (b *Builder[T]) AdaptiveLimit(configure func(*adaptivelimit.Config)) *Builder[T] {
	b.hasAdaptive = true
	if configure != nil {
		b.adaptive = append(b.adaptive, configure)
	}
	return b
}

// Use adds a custom policy, innermost (between the bulkhead and the call),
// after the custom policies added before it.
func (b *Builder[T]) Use(p policy.Policy[T]) *Builder[T] {
	b.custom = append(b.custom, p)
	return b
}

// all returns the configure functions of a kind as one (nil if none).
func all[C any](fns []func(*C)) func(*C) {
	if len(fns) == 0 {
		return nil
	}
	return func(c *C) {
		for _, fn := range fns {
			fn(c)
		}
	}
}

// Build resolves every policy against the registry, validates the whole
// pipeline and links the chain. On any error nothing is registered and no
// pipeline is returned; configuration errors are *r4c.ConfigError values
// (errors.Is(err, r4c.ErrConfig)).
func (b *Builder[T]) Build() (*Pipeline[T], error) {
	if b.built {
		return nil, &r4c.ConfigError{Code: r4c.CodeBuilder, Key: b.name, Rule: "a builder builds once; start a new one with NewBuilder"}
	}
	if b.reg == nil {
		return nil, &r4c.ConfigError{Code: r4c.CodeBuilder, Key: b.name, Rule: "the builder has no registry"}
	}
	for i, c := range b.custom {
		if c == nil {
			return nil, &r4c.ConfigError{Code: r4c.CodeBuilder, Key: b.name, Value: "Use#" + strconv.Itoa(i+1), Rule: "a custom policy must not be nil"}
		}
	}
	p := &Pipeline[T]{name: b.name}
	add := func(kind string, l policy.Link[T]) {
		if b.tap != nil {
			l = b.tap(kind, l)
		}
		p.links = append(p.links, l)
		p.kinds = append(p.kinds, kind)
	}
	err := b.reg.Update(func(tx *r4c.Tx) error {
		// The fixed order, outermost first.
		if b.hasAdaptive {
			l, err := tx.AdaptiveLimit(b.name, all(b.adaptive))
			if err != nil {
				return err
			}
			add("adaptivelimit", adaptivelimit.Stage[T](l))
		}
		for _, c := range b.custom {
			add("custom", policy.Wrap(c))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.built = true
	return p, nil
}
