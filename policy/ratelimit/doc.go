// Package ratelimit lets at most a number of calls per period through.
//
// A [Limiter] hands out Limit permits per Period, one every Period/Limit,
// and keeps up to Burst of them for a burst after a quiet spell. A call
// without a permit is refused at once with the limiter's
// [*RateLimitedError] (matching [ErrRateLimited] and policy.ErrRejected:
// the function was not called), or, with MaxWait set, waits for its permit
// if it comes within MaxWait (and before the caller's deadline). The error's
// RetryAfter method tells when a permit will be free.
//
// Use a rate limiter to respect a quota (an API that allows 100 requests a
// second) or to spread load over time. To bound how many calls run at
// once, use a bulkhead or the adaptive limit.
//
// # Time and determinism
//
// The limiter is the generic cell rate algorithm (GCRA): a token bucket
// kept as one timestamp, updated with a CAS from monotonic clock readings.
// Nothing refills in the background and no goroutine is started, so on a
// clocktest.ManualClock every decision depends only on how far the test
// moved the clock. The interval between permits is Period/Limit rounded
// down to the nanosecond (a limit of 3 per second spaces permits
// 333333333ns apart).
//
// In a pipeline the rate limiter stands outside the adaptive limit: a call
// the limit then rejects has already spent its permit.
//
// Taking a permit and refusing one allocate nothing.
//
// # Limits shared by every replica
//
// With a [Store] (Config.Store; the module r4credis keeps one in Redis) the
// limiter's state lives outside the process: every process that builds
// the same instance id, with the same Config.QuotaKey, draws from one
// quota, timed by the store's clock. Each decision is then a store call
// ([Limiter.Allow] included) bounded by Config.StoreTimeout; each refusal
// returns its own [*RateLimitedError]. When the store fails or does not
// answer in time, the limiter decides by Config.Fallback (a local limiter
// at FallbackShare of the rate, fail-open or fail-closed), publishes an
// events.StoreStateChanged, asks the store again once per
// Config.ProbeInterval, and is back on it at the first answer. Leases
// (Config.Lease) take several permits per round trip. A limiter without a
// Store is unchanged: the nil check is all the seam costs it.
package ratelimit
