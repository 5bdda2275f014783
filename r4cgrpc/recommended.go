package r4cgrpc

import (
	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// NewClientPipeline builds the pipeline we recommend for a gRPC client's
// unary calls, called name, against reg:
//
//	retry → circuit breaker → adaptive limit → timeout → the call
//
// with the settings a client needs, which differ from the core's defaults
// on purpose (the core keeps the reference's defaults): the retry aborts
// on an open breaker and on what [NotRetryable] accepts (a call gRPC's
// semantics forbid to send again), and waits what a server's
// grpc-retry-pushback-ms asks for ([retry.RetryAfterWait]); the breaker
// ignores the adaptive limit's rejections (a full limit says the client
// is busy, not that the server fails); the adaptive limit runs Little and
// counts [IsDrop] (Unavailable, ResourceExhausted, DeadlineExceeded) as a
// drop; the timeout is cooperative, and its deadline reaches the server
// as the call's grpc-timeout. The registry's defaults, named
// configurations and external keys tune the rest; each more function may
// add to the builder before Build.
//
// For streams use [NewStreamClientPipeline]: a stream cannot be retried.
func NewClientPipeline(reg *r4c.Registry, name string, more ...func(*pipeline.Builder[any])) (*pipeline.Pipeline[any], error) {
	b := pipeline.NewBuilder[any](reg, name).
		Retry(func(c *retry.Config) {
			c.AbortOn = []error{breaker.ErrOpen}
			c.AbortIf = NotRetryable
			c.WaitFunc = retry.RetryAfterWait
		}).
		Breaker(func(c *breaker.Config) { c.IgnoreOn = []error{adaptivelimit.ErrLimitExceeded} }).
		AdaptiveLimit(limitConfig).
		Timeout(func(c *timeout.Config) { c.Cooperative = true })
	return build(b, more)
}

// NewStreamClientPipeline builds the pipeline we recommend for a gRPC
// client's streams, called name: a circuit breaker that ignores the
// adaptive limit's rejections, then the adaptive limit (Little, [IsDrop]).
// It has no retry (a stream cannot be replayed) and no timeout (a
// stream's life is the caller's to bound, with its ctx).
func NewStreamClientPipeline(reg *r4c.Registry, name string, more ...func(*pipeline.Builder[any])) (*pipeline.Pipeline[any], error) {
	b := pipeline.NewBuilder[any](reg, name).
		Breaker(func(c *breaker.Config) { c.IgnoreOn = []error{adaptivelimit.ErrLimitExceeded} }).
		AdaptiveLimit(limitConfig)
	return build(b, more)
}

// NewServerPipeline builds the pipeline we recommend for a gRPC server,
// called name: an adaptive limit that runs Little and counts [IsDrop] (by
// default the codes that say the server failed or is overloaded) as a
// drop. It has no timeout: the client's deadline reaches the handler in
// its ctx, and a stream lives as long as it must. Each more function may
// add to the builder (a rate limiter, a bulkhead) before Build.
func NewServerPipeline(reg *r4c.Registry, name string, more ...func(*pipeline.Builder[any])) (*pipeline.Pipeline[any], error) {
	return build(pipeline.NewBuilder[any](reg, name).AdaptiveLimit(limitConfig), more)
}

func limitConfig(c *adaptivelimit.Config) {
	c.Algorithm = adaptivelimit.Little
	c.DropIf = IsDrop
}

func build(b *pipeline.Builder[any], more []func(*pipeline.Builder[any])) (*pipeline.Pipeline[any], error) {
	for _, f := range more {
		if f != nil {
			f(b)
		}
	}
	return b.Build()
}
