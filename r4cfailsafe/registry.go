package r4cfailsafe

import (
	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// The registry's instances are made when a pipeline is built. For code that
// runs failsafe-go executors only, these functions build the instance named
// name in reg (as a one-policy pipeline would: the registry's layers,
// external keys and shared names apply, and the same coded errors come
// back) and return it as a failsafe-go policy. Its handle is then
// reg.AdaptiveLimit(id) (and so on), where id is name, or the Config.Name
// that configure sets. configure may be nil.

// NewAdaptiveLimit builds the adaptive limit name in reg and returns it as
// a failsafe-go policy (see [AdaptiveLimit]). On a configuration error it
// returns the *r4c.ConfigError and no policy.
func NewAdaptiveLimit[R any](reg *r4c.Registry, name string, configure func(*adaptivelimit.Config)) (*Policy[R], error) {
	id, configure := idOf(name, configure, func(c *adaptivelimit.Config) string { return c.Name })
	if _, err := pipeline.NewBuilder[R](reg, name).AdaptiveLimit(configure).Build(); err != nil {
		return nil, err
	}
	h, err := reg.AdaptiveLimit(*id)
	if err != nil {
		return nil, err
	}
	return AdaptiveLimit[R](h), nil
}

// NewBulkhead builds the bulkhead name in reg and returns it as a
// failsafe-go policy (see [Bulkhead]).
func NewBulkhead[R any](reg *r4c.Registry, name string, configure func(*bulkhead.Config)) (*Policy[R], error) {
	id, configure := idOf(name, configure, func(c *bulkhead.Config) string { return c.Name })
	if _, err := pipeline.NewBuilder[R](reg, name).Bulkhead(configure).Build(); err != nil {
		return nil, err
	}
	h, err := reg.Bulkhead(*id)
	if err != nil {
		return nil, err
	}
	return Bulkhead[R](h), nil
}

// NewBreaker builds the circuit breaker name in reg and returns it as a
// failsafe-go policy (see [Breaker]).
func NewBreaker[R any](reg *r4c.Registry, name string, configure func(*breaker.Config)) (*Policy[R], error) {
	id, configure := idOf(name, configure, func(c *breaker.Config) string { return c.Name })
	if _, err := pipeline.NewBuilder[R](reg, name).Breaker(configure).Build(); err != nil {
		return nil, err
	}
	h, err := reg.Breaker(*id)
	if err != nil {
		return nil, err
	}
	return Breaker[R](h), nil
}

// NewRateLimit builds the rate limiter name in reg and returns it as a
// failsafe-go policy (see [RateLimit]).
func NewRateLimit[R any](reg *r4c.Registry, name string, configure func(*ratelimit.Config)) (*Policy[R], error) {
	id, configure := idOf(name, configure, func(c *ratelimit.Config) string { return c.Name })
	if _, err := pipeline.NewBuilder[R](reg, name).RateLimit(configure).Build(); err != nil {
		return nil, err
	}
	h, err := reg.RateLimit(*id)
	if err != nil {
		return nil, err
	}
	return RateLimit[R](h), nil
}

// idOf wraps configure so that it records the instance id: name, or the
// Name configure sets.
func idOf[C any](name string, configure func(*C), nameOf func(*C) string) (*string, func(*C)) {
	id := name
	return &id, func(c *C) {
		if configure != nil {
			configure(c)
		}
		if n := nameOf(c); n != "" {
			id = n
		}
	}
}
