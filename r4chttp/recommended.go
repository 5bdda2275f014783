package r4chttp

import (
	"net/http"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// NewClientPipeline builds the pipeline we recommend for an HTTP client,
// called name, against reg:
//
//	retry → circuit breaker → adaptive limit → timeout → the request
//
// with the settings an HTTP client needs, which differ from the core's
// defaults on purpose (the core keeps the reference's defaults):
//
//   - the retry aborts on an open breaker (breaker.ErrOpen): retrying a
//     breaker that refuses every call only spends the waits; it gives up
//     at once on what [NotRetryable] accepts (a body that cannot be sent
//     again, a failure of a request that is not idempotent); and its
//     WaitFunc is [retry.RetryAfterWait], so a 429 or 503 with
//     Retry-After waits what the server asked for;
//   - the breaker ignores the adaptive limit's rejections
//     (adaptivelimit.ErrLimitExceeded): a full limit says the client is
//     busy, not that the server fails, and counting it would open the
//     breaker against a healthy server under a burst;
//   - the adaptive limit runs Little (it finds the server's capacity on
//     any shape of latency) and counts [IsDrop] (a 503 or 429) as a drop,
//     besides the timeout;
//   - the timeout is cooperative: HTTP requests honour their ctx, so no
//     goroutine is needed per call.
//
// Everything else comes from the registry: its defaults, named
// configurations and external keys (instances.<name>.timeout.timeout=2s,
// instances.<name>.retry.maxAttempts=4) tune this pipeline as any other;
// a value set above wins over the defaults and named configurations, and
// an external instance key wins over it. Each more function may add to
// the builder (b.Hedge(nil), or b.Retry(func(c *retry.Config) { ... }),
// which adds to the settings above) before Build.
func NewClientPipeline(reg *r4c.Registry, name string, more ...func(*pipeline.Builder[*http.Response])) (*pipeline.Pipeline[*http.Response], error) {
	b := pipeline.NewBuilder[*http.Response](reg, name).
		Retry(func(c *retry.Config) {
			c.AbortOn = []error{breaker.ErrOpen}
			c.AbortIf = NotRetryable
			c.WaitFunc = retry.RetryAfterWait
		}).
		Breaker(func(c *breaker.Config) {
			c.IgnoreOn = []error{adaptivelimit.ErrLimitExceeded}
			c.IgnoreIf = isRefusal // an attempt the Transport did not send
		}).
		AdaptiveLimit(func(c *adaptivelimit.Config) {
			c.Algorithm = adaptivelimit.Little
			c.DropIf = IsDrop
		}).
		Timeout(func(c *timeout.Config) { c.Cooperative = true })
	for _, f := range more {
		if f != nil {
			f(b)
		}
	}
	return b.Build()
}

// NewClient returns an *http.Client whose Transport sends every request
// through the pipeline NewClientPipeline(reg, name) builds, over base
// (http.DefaultTransport if nil), on the registry's clock. It returns
// NewClientPipeline's errors.
func NewClient(reg *r4c.Registry, name string, base http.RoundTripper) (*http.Client, error) {
	p, err := NewClientPipeline(reg, name)
	if err != nil {
		return nil, err
	}
	t, err := NewTransport(p, ClientConfig{Base: base, Clock: reg.Clock()})
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: t}, nil
}

// NewServerPipeline builds the pipeline we recommend for an HTTP server,
// called name, against reg:
//
//	adaptive limit → timeout → the handler
//
// The adaptive limit runs Little and counts [IsDrop] (by default a 5xx
// the handler wrote) as a drop, besides the timeout; the timeout is
// cooperative, so the handler runs on the server's goroutine and gets the
// deadline in its request's ctx (its length is the registry's: the core
// default is 1s, set instances.<name>.timeout.timeout or the timeout
// defaults for your handlers). A server pipeline has no retry and no
// hedge (a handler answers once) and needs no breaker: shedding is the
// adaptive limit's job. Each more function may add to the builder (a rate
// limiter: b.RateLimit(...)) before Build.
func NewServerPipeline(reg *r4c.Registry, name string, more ...func(*pipeline.Builder[int])) (*pipeline.Pipeline[int], error) {
	b := pipeline.NewBuilder[int](reg, name).
		AdaptiveLimit(func(c *adaptivelimit.Config) {
			c.Algorithm = adaptivelimit.Little
			c.DropIf = IsDrop
		}).
		Timeout(func(c *timeout.Config) { c.Cooperative = true })
	for _, f := range more {
		if f != nil {
			f(b)
		}
	}
	return b.Build()
}
