package r4c

// The fixed public names of the eight policy kinds, each a line over the
// one engine: With<Kind>Defaults and With<Kind>Config add code layers,
// reg.<Kind>(id) returns an instance's handle.

import (
	"github.com/resilience4cata/r4c/internal/engine"
	"github.com/resilience4cata/r4c/internal/kinds"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// WithAdaptiveLimitDefaults sets what every adaptive limit of the registry starts from,
// above the built-in defaults. configure gets a zero Config and sets what it
// wants: the fields it leaves zero are not set at this level (use
// Config.SetZero to set one back to zero, Config.Enable to clear Disabled).
// NewRegistry runs configure once; a value it sets that breaks a rule, a
// Name or BaseConfig (which only a builder sets) or an unknown SetZero name
// makes NewRegistry fail with R4C-REG-001. Funcs and lists set here (DropOn,
// DropIf) reach every instance, shared ones included.
func WithAdaptiveLimitDefaults(configure func(*adaptivelimit.Config)) Option {
	return defaultsOption(kinds.AdaptiveLimit, configure)
}

// WithAdaptiveLimitConfig defines (or adds to) the named configuration name, which
// an adaptive limit starts from when its Config.BaseConfig (or the key
// instances.<id>.adaptiveLimit.baseConfig) names it. It sits above the defaults,
// with the same rules as [WithAdaptiveLimitDefaults]. It is where the funcs and
// lists of a shared instance belong: every builder sharing the instance
// sets BaseConfig to name.
func WithAdaptiveLimitConfig(name string, configure func(*adaptivelimit.Config)) Option {
	return configOption(kinds.AdaptiveLimit, name, configure)
}

// AdaptiveLimit returns the handle of the adaptive limit with this id: the pipeline's name,
// or the Config.Name it was given. An id no pipeline built is an
// R4C-REG-009 error naming the nearest id.
func (r *Registry) AdaptiveLimit(id string) (*adaptivelimit.Handle, error) {
	return handle(r, kinds.AdaptiveLimit, id, (*adaptivelimit.Limiter).Handle)
}

// WithTimeoutDefaults sets what every timeout of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithTimeoutDefaults(configure func(*timeout.Config)) Option {
	return defaultsOption(kinds.Timeout, configure)
}

// WithTimeoutConfig defines (or adds to) the named timeout configuration name,
// used through Config.BaseConfig; see [WithAdaptiveLimitConfig].
func WithTimeoutConfig(name string, configure func(*timeout.Config)) Option {
	return configOption(kinds.Timeout, name, configure)
}

// Timeout returns the handle of the timeout with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) Timeout(id string) (*timeout.Handle, error) {
	return handle(r, kinds.Timeout, id, (*timeout.Timeout).Handle)
}

// WithBulkheadDefaults sets what every bulkhead of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithBulkheadDefaults(configure func(*bulkhead.Config)) Option {
	return defaultsOption(kinds.Bulkhead, configure)
}

// WithBulkheadConfig defines (or adds to) the named bulkhead configuration name,
// used through Config.BaseConfig; see [WithAdaptiveLimitConfig].
func WithBulkheadConfig(name string, configure func(*bulkhead.Config)) Option {
	return configOption(kinds.Bulkhead, name, configure)
}

// Bulkhead returns the handle of the bulkhead with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) Bulkhead(id string) (*bulkhead.Handle, error) {
	return handle(r, kinds.Bulkhead, id, (*bulkhead.Bulkhead).Handle)
}

// WithRateLimitDefaults sets what every rate limiter of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithRateLimitDefaults(configure func(*ratelimit.Config)) Option {
	return defaultsOption(kinds.RateLimit, configure)
}

// WithRateLimitConfig defines (or adds to) the named rate limiter configuration name,
// used through Config.BaseConfig; see [WithAdaptiveLimitConfig].
func WithRateLimitConfig(name string, configure func(*ratelimit.Config)) Option {
	return configOption(kinds.RateLimit, name, configure)
}

// RateLimit returns the handle of the rate limiter with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) RateLimit(id string) (*ratelimit.Handle, error) {
	return handle(r, kinds.RateLimit, id, (*ratelimit.Limiter).Handle)
}

// WithRetryDefaults sets what every retry of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithRetryDefaults(configure func(*retry.Config)) Option {
	return defaultsOption(kinds.Retry, configure)
}

// WithRetryConfig defines (or adds to) the named retry configuration name,
// used through Config.BaseConfig; see [WithAdaptiveLimitConfig].
func WithRetryConfig(name string, configure func(*retry.Config)) Option {
	return configOption(kinds.Retry, name, configure)
}

// Retry returns the handle of the retry with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) Retry(id string) (*retry.Handle, error) {
	return handle(r, kinds.Retry, id, (*retry.Retry).Handle)
}

// WithBreakerDefaults sets what every circuit breaker of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithBreakerDefaults(configure func(*breaker.Config)) Option {
	return defaultsOption(kinds.Breaker, configure)
}

// WithBreakerConfig defines (or adds to) the named circuit breaker configuration name,
// used through Config.BaseConfig; see [WithAdaptiveLimitConfig].
func WithBreakerConfig(name string, configure func(*breaker.Config)) Option {
	return configOption(kinds.Breaker, name, configure)
}

// Breaker returns the handle of the circuit breaker with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) Breaker(id string) (*breaker.Handle, error) {
	return handle(r, kinds.Breaker, id, (*breaker.Breaker).Handle)
}

// WithHedgeDefaults sets what every hedge of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithHedgeDefaults(configure func(*hedge.Config)) Option {
	return defaultsOption(kinds.Hedge, configure)
}

// WithHedgeConfig defines (or adds to) the named hedge configuration name,
// used through Config.BaseConfig; see [WithAdaptiveLimitConfig].
func WithHedgeConfig(name string, configure func(*hedge.Config)) Option {
	return configOption(kinds.Hedge, name, configure)
}

// Hedge returns the handle of the hedge with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) Hedge(id string) (*hedge.Handle, error) {
	return handle(r, kinds.Hedge, id, (*hedge.Hedge).Handle)
}

// WithFallbackDefaults sets what every fallback of the registry starts from,
// above the built-in defaults; see [WithAdaptiveLimitDefaults] for the rules.
func WithFallbackDefaults(configure func(*fallback.Config)) Option {
	return defaultsOption(kinds.Fallback, configure)
}

// WithFallbackConfig defines (or adds to) the named fallback configuration name,
// used through Config.BaseConfig; see [WithAdaptiveLimitConfig].
func WithFallbackConfig(name string, configure func(*fallback.Config)) Option {
	return configOption(kinds.Fallback, name, configure)
}

// Fallback returns the handle of the fallback with this id. An unknown id is an
// R4C-REG-009 error.
func (r *Registry) Fallback(id string) (*fallback.Handle, error) {
	return handle(r, kinds.Fallback, id, (*fallback.Fallback).Handle)
}

func defaultsOption[C any, I any](k *engine.Kind[C, I], configure func(*C)) Option {
	return optionFunc(func(r *Registry) error { return engine.AddDefaults(r.e, k, configure) })
}

func configOption[C any, I any](k *engine.Kind[C, I], name string, configure func(*C)) Option {
	return optionFunc(func(r *Registry) error { return engine.AddConfig(r.e, k, name, configure) })
}

func handle[C any, I any, H any](r *Registry, k *engine.Kind[C, I], id string, h func(I) H) (H, error) {
	inst, err := engine.Lookup(r.e, k, id)
	if err != nil {
		var zero H
		return zero, export(err)
	}
	return h(inst), nil
}
