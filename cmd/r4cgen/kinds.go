package main

import (
	"reflect"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
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

// The keys a directive takes beside its kind's flat keys: name shares an
// instance (Config.Name), config starts from a named configuration
// (Config.BaseConfig; baseConfig is the flat key's spelling of it).
const (
	keyName       = "name"
	keyConfig     = "config"
	keyBaseConfig = "baseConfig"
)

// kind is what the generator knows of one policy kind: its directive name
// (the flat keys' kind segment), the builder method and package it
// generates code for, and its key table, read from the policy package
// itself so that a directive takes exactly the keys and values the
// registry takes.
type kind interface {
	// Name is the canonical name, such as "adaptiveLimit".
	Name() string
	// Aliases are other accepted names, such as "circuitBreaker".
	Aliases() []string
	// Shorthand is the key a bare value sets ("timeout" for
	// //r4c:timeout 2s), or "" when the kind takes none.
	Shorthand() string
	// Method is the pipeline.Builder method, such as "AdaptiveLimit".
	Method() string
	// PkgPath is the policy package's import path.
	PkgPath() string
	// Keys returns the names of the kind's flat keys, in the table's order.
	Keys() []string
	// Parse reads text as the value of the key at index i of the table
	// into a new Config, returned as a value of the kind's Config type. A
	// syntax error is the key's *policy.FieldError.
	Parse(i int, text string) (any, error)
	// Field returns the Go field the key at index i sets in cfg (a value
	// Parse returned) and its value; zero reports that the value is the
	// field's zero value (set with SetZero or Enable in code). field is ""
	// when no exported field holds the value, which the tests rule out for
	// every key of every table.
	Field(i int, cfg any) (field string, v reflect.Value, zero bool)
	// Add adds the kind to b with the settings of s, the way the
	// generated code will, for the check of the directives against the
	// registry's rules.
	Add(b *pipeline.Builder[any], s *kindSpec) *pipeline.Builder[any]
	// Config returns the registry option that defines an empty named
	// configuration of the kind called name.
	Config(name string) r4c.Option
}

// kindOf implements kind for the Config type C.
type kindOf[C any] struct {
	name      string
	aliases   []string
	shorthand string
	method    string
	pkgPath   string
	table     *policy.Table[C]
	add       func(b *pipeline.Builder[any], fn func(*C)) *pipeline.Builder[any]
	config    func(name string, fn func(*C)) r4c.Option
}

func (k *kindOf[C]) Name() string      { return k.name }
func (k *kindOf[C]) Aliases() []string { return k.aliases }
func (k *kindOf[C]) Shorthand() string { return k.shorthand }
func (k *kindOf[C]) Method() string    { return k.method }
func (k *kindOf[C]) PkgPath() string   { return k.pkgPath }
func (k *kindOf[C]) Keys() []string    { return k.table.Names() }

func (k *kindOf[C]) Parse(i int, text string) (any, error) {
	var c C
	if err := k.table.At(i).Set(&c, text); err != nil {
		return nil, err
	}
	return c, nil
}

// Field finds the field by comparing the parsed Config with the zero one:
// the key tables say how to read and write a key, not which field it
// holds, and exactly one exported field differs when the value is not its
// zero.
func (k *kindOf[C]) Field(i int, cfg any) (string, reflect.Value, bool) {
	c := cfg.(C)
	if k.table.At(i).IsZero(&c) {
		return "", reflect.Value{}, true
	}
	v := reflect.ValueOf(c)
	t := v.Type()
	for f := range t.NumField() {
		if t.Field(f).IsExported() && !v.Field(f).IsZero() {
			return t.Field(f).Name, v.Field(f), false
		}
	}
	return "", reflect.Value{}, false
}

func (k *kindOf[C]) Add(b *pipeline.Builder[any], s *kindSpec) *pipeline.Builder[any] {
	t := k.table
	return k.add(b, func(c *C) {
		*t.Name(c) = s.name.value
		*t.BaseConfig(c) = s.config.value
		for _, set := range s.settings {
			key := t.At(set.index)
			parsed := set.parsed.(C)
			switch {
			case !key.IsZero(&parsed):
				key.Copy(c, &parsed)
			case key.Name == policy.EnabledKeyName:
				t.Enable(c)
			default:
				t.SetZero(c, key.Name)
			}
		}
	})
}

func (k *kindOf[C]) Config(name string) r4c.Option { return k.config(name, func(*C) {}) }

// kinds lists the policy kinds in the pipeline's order, outermost first:
// the order the generated code calls the builder in.
var kinds = []kind{
	&kindOf[fallback.Config]{name: "fallback", shorthand: keyConfig, method: "Fallback",
		pkgPath: "github.com/resilience4cata/r4c/policy/fallback", table: fallback.Keys(),
		add: (*pipeline.Builder[any]).Fallback, config: r4c.WithFallbackConfig},
	&kindOf[retry.Config]{name: "retry", shorthand: "maxAttempts", method: "Retry",
		pkgPath: "github.com/resilience4cata/r4c/policy/retry", table: retry.Keys(),
		add: (*pipeline.Builder[any]).Retry, config: r4c.WithRetryConfig},
	&kindOf[breaker.Config]{name: "breaker", aliases: []string{"circuitBreaker"}, method: "Breaker",
		pkgPath: "github.com/resilience4cata/r4c/policy/breaker", table: breaker.Keys(),
		add: (*pipeline.Builder[any]).Breaker, config: r4c.WithBreakerConfig},
	&kindOf[hedge.Config]{name: "hedge", shorthand: "delay", method: "Hedge",
		pkgPath: "github.com/resilience4cata/r4c/policy/hedge", table: hedge.Keys(),
		add: (*pipeline.Builder[any]).Hedge, config: r4c.WithHedgeConfig},
	&kindOf[ratelimit.Config]{name: "rateLimit", aliases: []string{"rateLimiter"}, shorthand: "limit", method: "RateLimit",
		pkgPath: "github.com/resilience4cata/r4c/policy/ratelimit", table: ratelimit.Keys(),
		add: (*pipeline.Builder[any]).RateLimit, config: r4c.WithRateLimitConfig},
	&kindOf[adaptivelimit.Config]{name: "adaptiveLimit", method: "AdaptiveLimit",
		pkgPath: "github.com/resilience4cata/r4c/policy/adaptivelimit", table: adaptivelimit.Keys(),
		add: (*pipeline.Builder[any]).AdaptiveLimit, config: r4c.WithAdaptiveLimitConfig},
	&kindOf[timeout.Config]{name: "timeout", shorthand: "timeout", method: "Timeout",
		pkgPath: "github.com/resilience4cata/r4c/policy/timeout", table: timeout.Keys(),
		add: (*pipeline.Builder[any]).Timeout, config: r4c.WithTimeoutConfig},
	&kindOf[bulkhead.Config]{name: "bulkhead", shorthand: "maxConcurrent", method: "Bulkhead",
		pkgPath: "github.com/resilience4cata/r4c/policy/bulkhead", table: bulkhead.Keys(),
		add: (*pipeline.Builder[any]).Bulkhead, config: r4c.WithBulkheadConfig},
}

// kindNames returns every name a directive may start with: the kinds'
// names and aliases, then config.
func kindNames() []string {
	var names []string
	for _, k := range kinds {
		names = append(names, k.Name())
		names = append(names, k.Aliases()...)
	}
	return append(names, keyConfig)
}

// lookupKind returns the kind called name (or one of its aliases).
func lookupKind(name string) kind {
	for _, k := range kinds {
		if k.Name() == name {
			return k
		}
		for _, a := range k.Aliases() {
			if a == name {
				return k
			}
		}
	}
	return nil
}
