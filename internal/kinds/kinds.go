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
	}
	Timeout = &engine.Kind[timeout.Config, *timeout.Timeout]{
		Name: "timeout", Option: "Timeout", Keys: timeout.Keys(),
		Defaults: timeout.Config.WithDefaults, Validate: timeout.Config.Validate, Build: timeout.New,
	}
	Bulkhead = &engine.Kind[bulkhead.Config, *bulkhead.Bulkhead]{
		Name: "bulkhead", Option: "Bulkhead", Keys: bulkhead.Keys(),
		Defaults: bulkhead.Config.WithDefaults, Validate: bulkhead.Config.Validate, Build: bulkhead.New,
	}
	RateLimit = &engine.Kind[ratelimit.Config, *ratelimit.Limiter]{
		Name: "rateLimit", Aliases: []string{"rateLimiter"}, Option: "RateLimit", Keys: ratelimit.Keys(),
		Defaults: ratelimit.Config.WithDefaults, Validate: ratelimit.Config.Validate, Build: ratelimit.New,
	}
	Retry = &engine.Kind[retry.Config, *retry.Retry]{
		Name: "retry", Option: "Retry", Keys: retry.Keys(),
		Defaults: retry.Config.WithDefaults, Validate: retry.Config.Validate, Build: retry.New,
	}
	Breaker = &engine.Kind[breaker.Config, *breaker.Breaker]{
		Name: "breaker", Aliases: []string{"circuitBreaker"}, Option: "Breaker", Keys: breaker.Keys(),
		Defaults: breaker.Config.WithDefaults, Validate: breaker.Config.Validate, Build: breaker.New,
	}
	Hedge = &engine.Kind[hedge.Config, *hedge.Hedge]{
		Name: "hedge", Option: "Hedge", Keys: hedge.Keys(),
		Defaults: hedge.Config.WithDefaults, Validate: hedge.Config.Validate, Build: hedge.New,
	}
	Fallback = &engine.Kind[fallback.Config, *fallback.Fallback]{
		Name: "fallback", Option: "Fallback", Keys: fallback.Keys(),
		Defaults: fallback.Config.WithDefaults, Validate: fallback.Config.Validate, Build: fallback.New,
	}
)

// All returns the kinds in the pipeline's order, outermost first.
func All() []engine.AnyKind {
	return []engine.AnyKind{Fallback, Retry, Breaker, Hedge, RateLimit, AdaptiveLimit, Timeout, Bulkhead}
}
