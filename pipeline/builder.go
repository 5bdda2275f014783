package pipeline

import (
	"strconv"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/internal/engine"
	"github.com/resilience4cata/r4c/internal/kinds"
	"github.com/resilience4cata/r4c/internal/seam"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
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

	fallback  stageConfig[fallback.Config]
	retry     stageConfig[retry.Config]
	breaker   stageConfig[breaker.Config]
	hedge     stageConfig[hedge.Config]
	ratelimit stageConfig[ratelimit.Config]
	adaptive  stageConfig[adaptivelimit.Config]
	timeout   stageConfig[timeout.Config]
	bulkhead  stageConfig[bulkhead.Config]
	custom    []policy.Policy[T]

	// tap, set by tests, wraps each link as it is placed in the chain.
	tap func(kind string, l policy.Link[T]) policy.Link[T]
}

// stageConfig records whether a kind was asked for and its configure functions.
type stageConfig[C any] struct {
	on  bool
	fns []func(*C)
}

func (s *stageConfig[C]) add(fn func(*C)) {
	s.on = true
	if fn != nil {
		s.fns = append(s.fns, fn)
	}
}

// configure returns the configure functions as one (nil if none).
func (s *stageConfig[C]) configure() func(*C) {
	if len(s.fns) == 0 {
		return nil
	}
	fns := s.fns
	return func(c *C) {
		for _, fn := range fns {
			fn(c)
		}
	}
}

// NewBuilder starts a pipeline called name, built against reg. The name is
// the default instance id of the pipeline's policies (a policy's
// Config.Name overrides it) and the id that external instance keys and
// handles use.
func NewBuilder[T any](reg *r4c.Registry, name string) *Builder[T] {
	return &Builder[T]{reg: reg, name: name}
}

// Fallback adds a fallback, outermost: it sees the outcome of everything
// inside, rejections included. Set its value with fallback.Return or its
// function with fallback.Call, which check the result type; a Value that is
// not a T fails Build with R4C-ATR-010.
func (b *Builder[T]) Fallback(configure func(*fallback.Config)) *Builder[T] {
	b.fallback.add(configure)
	return b
}

// Retry adds a retry (outside the circuit breaker): each attempt runs the
// rest of the chain afresh and its wait holds no slot.
func (b *Builder[T]) Retry(configure func(*retry.Config)) *Builder[T] {
	b.retry.add(configure)
	return b
}

// Breaker adds a circuit breaker (inside the retry, outside the hedge).
func (b *Builder[T]) Breaker(configure func(*breaker.Config)) *Builder[T] {
	b.breaker.add(configure)
	return b
}

// Hedge adds a hedge (inside the breaker, outside the rate limiter): each
// hedged attempt takes its own permit and slot.
func (b *Builder[T]) Hedge(configure func(*hedge.Config)) *Builder[T] {
	b.hedge.add(configure)
	return b
}

// RateLimit adds a rate limiter (outside the adaptive limit: a call the
// limit rejects has already taken a permit).
func (b *Builder[T]) RateLimit(configure func(*ratelimit.Config)) *Builder[T] {
	b.ratelimit.add(configure)
	return b
}

// AdaptiveLimit adds the adaptive limit.
func (b *Builder[T]) AdaptiveLimit(configure func(*adaptivelimit.Config)) *Builder[T] {
	b.adaptive.add(configure)
	return b
}

// Timeout adds a timeout (inside the adaptive limit: a timeout is a drop).
func (b *Builder[T]) Timeout(configure func(*timeout.Config)) *Builder[T] {
	b.timeout.add(configure)
	return b
}

// Bulkhead adds a bulkhead (innermost of the built-in policies: a full
// bulkhead is a drop to the adaptive limit).
func (b *Builder[T]) Bulkhead(configure func(*bulkhead.Config)) *Builder[T] {
	b.bulkhead.add(configure)
	return b
}

// Use adds a custom policy, innermost (between the bulkhead and the call),
// after the custom policies added before it.
func (b *Builder[T]) Use(p policy.Policy[T]) *Builder[T] {
	b.custom = append(b.custom, p)
	return b
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
	p := &Pipeline[T]{name: b.name, bus: b.reg.Events(), clock: b.reg.Clock()}
	var links []policy.Link[T]
	add := func(kind string, l policy.Link[T]) {
		if b.tap != nil {
			l = b.tap(kind, l)
		}
		links = append(links, l)
		p.kinds = append(p.kinds, kind)
	}
	err := seam.Update(b.reg, func(tx *engine.Tx) error {
		// The fixed order, outermost first.
		return firstErr(
			place(tx, kinds.Fallback, b.fallback, b.name, fallbackStage[T], "fallback", add),
			place(tx, kinds.Retry, b.retry, b.name, func(r *retry.Retry) (policy.Link[T], error) {
				p.repeats = p.repeats || !r.Handle().Config().Disabled
				return retry.Stage[T](r), nil
			}, "retry", add),
			place(tx, kinds.Breaker, b.breaker, b.name, always(breaker.Stage[T]), "breaker", add),
			place(tx, kinds.Hedge, b.hedge, b.name, func(h *hedge.Hedge) (policy.Link[T], error) {
				p.detaches = p.detaches || !h.Handle().Config().Disabled
				p.repeats = p.repeats || !h.Handle().Config().Disabled
				return hedge.Stage[T](h), nil
			}, "hedge", add),
			place(tx, kinds.RateLimit, b.ratelimit, b.name, always(ratelimit.Stage[T]), "ratelimit", add),
			place(tx, kinds.AdaptiveLimit, b.adaptive, b.name, always(adaptivelimit.Stage[T]), "adaptivelimit", add),
			place(tx, kinds.Timeout, b.timeout, b.name, func(t *timeout.Timeout) (policy.Link[T], error) {
				h := t.Handle()
				p.detaches = p.detaches || !h.Config().Disabled && !h.Cooperative()
				return timeout.Stage[T](t), nil
			}, "timeout", add),
			place(tx, kinds.Bulkhead, b.bulkhead, b.name, always(bulkhead.Stage[T]), "bulkhead", add),
			func() error {
				for _, c := range b.custom {
					add("custom", policy.Wrap(c))
				}
				return nil
			},
		)
	})
	if err != nil {
		return nil, err
	}
	p.chain = policy.NewChain(links...)
	b.built = true
	return p, nil
}

// place returns a step that resolves one kind's core in tx and adds its
// stage.
func place[T any, C any, I any](tx *engine.Tx, k *engine.Kind[C, I], s stageConfig[C], name string,
	stage func(I) (policy.Link[T], error), kind string, add func(string, policy.Link[T])) func() error {
	return func() error {
		if !s.on {
			return nil
		}
		core, err := engine.Resolve(tx, k, name, s.configure())
		if err != nil {
			return err
		}
		l, err := stage(core)
		if err != nil {
			return err
		}
		add(kind, l)
		return nil
	}
}

// always adapts a Stage constructor that cannot fail.
func always[T any, I any](stage func(I) policy.Link[T]) func(I) (policy.Link[T], error) {
	return func(core I) (policy.Link[T], error) { return stage(core), nil }
}

// fallbackStage checks, at build, that the fallback's value is a T.
func fallbackStage[T any](f *fallback.Fallback) (policy.Link[T], error) {
	l, err := fallback.Stage[T](f)
	if err != nil {
		return nil, engine.StageError(kinds.Fallback.Name, f.Config().Name, err)
	}
	return l, nil
}

// firstErr runs the steps in order and stops at the first error.
func firstErr(steps ...func() error) error {
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}
