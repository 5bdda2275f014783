// Package kinds declares the eight policy kinds to the registry's engine:
// each kind's flat-key name, its key table and its constructor. Package
// r4c builds its registry from All, and package pipeline resolves each
// stage of a pipeline through the same values.
package kinds

import (
	"github.com/resilience4cata/r4c/internal/engine"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// The kinds, one per policy package.
var (
	AdaptiveLimit = &engine.Kind[adaptivelimit.Config, *adaptivelimit.Limiter]{
		Name: "adaptiveLimit", Option: "AdaptiveLimit", Keys: adaptivelimit.Keys(),
		Defaults: adaptivelimit.Config.WithDefaults, Validate: adaptivelimit.Config.Validate, Build: adaptivelimit.New,
		Current: func(i *adaptivelimit.Limiter) adaptivelimit.Config { return i.Handle().Config() },
		Update:  func(i *adaptivelimit.Limiter, fn func(*adaptivelimit.Config)) error { return i.Handle().Update(fn) },
	}
	Timeout = &engine.Kind[timeout.Config, *timeout.Timeout]{
		Name: "timeout", Option: "Timeout", Keys: timeout.Keys(),
		Defaults: timeout.Config.WithDefaults, Validate: timeout.Config.Validate, Build: timeout.New,
		Current: func(i *timeout.Timeout) timeout.Config { return i.Handle().Config() },
		Update:  func(i *timeout.Timeout, fn func(*timeout.Config)) error { return i.Handle().Update(fn) },
	}
	Bulkhead = &engine.Kind[bulkhead.Config, *bulkhead.Bulkhead]{
		Name: "bulkhead", Option: "Bulkhead", Keys: bulkhead.Keys(),
		Defaults: bulkhead.Config.WithDefaults, Validate: bulkhead.Config.Validate, Build: bulkhead.New,
		Current: func(i *bulkhead.Bulkhead) bulkhead.Config { return i.Handle().Config() },
		Update:  func(i *bulkhead.Bulkhead, fn func(*bulkhead.Config)) error { return i.Handle().Update(fn) },
	}
	RateLimit = &engine.Kind[ratelimit.Config, *ratelimit.Limiter]{
		Name: "rateLimit", Aliases: []string{"rateLimiter"}, Option: "RateLimit", Keys: ratelimit.Keys(),
		Defaults: ratelimit.Config.WithDefaults, Validate: ratelimit.Config.Validate, Build: ratelimit.New,
		Current: func(i *ratelimit.Limiter) ratelimit.Config { return i.Handle().Config() },
		Update:  func(i *ratelimit.Limiter, fn func(*ratelimit.Config)) error { return i.Handle().Update(fn) },
	}
	Retry = &engine.Kind[retry.Config, *retry.Retry]{
		Name: "retry", Option: "Retry", Keys: retry.Keys(),
		Defaults: retry.Config.WithDefaults, Validate: retry.Config.Validate, Build: retry.New,
		Current: func(i *retry.Retry) retry.Config { return i.Handle().Config() },
		Update:  func(i *retry.Retry, fn func(*retry.Config)) error { return i.Handle().Update(fn) },
	}
	Breaker = &engine.Kind[breaker.Config, *breaker.Breaker]{
		Name: "breaker", Aliases: []string{"circuitBreaker"}, Option: "Breaker", Keys: breaker.Keys(),
		Defaults: breaker.Config.WithDefaults, Validate: breaker.Config.Validate, Build: breaker.New,
		Current: func(i *breaker.Breaker) breaker.Config { return i.Handle().Config() },
		Update:  func(i *breaker.Breaker, fn func(*breaker.Config)) error { return i.Handle().Update(fn) },
	}
	Hedge = &engine.Kind[hedge.Config, *hedge.Hedge]{
		Name: "hedge", Option: "Hedge", Keys: hedge.Keys(),
		Defaults: hedge.Config.WithDefaults, Validate: hedge.Config.Validate, Build: hedge.New,
		Current: func(i *hedge.Hedge) hedge.Config { return i.Handle().Config() },
		Update:  func(i *hedge.Hedge, fn func(*hedge.Config)) error { return i.Handle().Update(fn) },
	}
	Fallback = &engine.Kind[fallback.Config, *fallback.Fallback]{
		Name: "fallback", Option: "Fallback", Keys: fallback.Keys(),
		Defaults: fallback.Config.WithDefaults, Validate: fallback.Config.Validate, Build: fallback.New,
		Current: func(i *fallback.Fallback) fallback.Config { return i.Handle().Config() },
		Update:  func(i *fallback.Fallback, fn func(*fallback.Config)) error { return i.Handle().Update(fn) },
	}
)

// All returns the kinds in the pipeline's order, outermost first.
func All() []engine.AnyKind {
	return []engine.AnyKind{Fallback, Retry, Breaker, Hedge, RateLimit, AdaptiveLimit, Timeout, Bulkhead}
}
