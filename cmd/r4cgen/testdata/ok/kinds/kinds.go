// Package kinds uses every directive kind, its keys and value syntaxes.
package kinds

import "context"

type Every interface {
	//r4c:adaptiveLimit algorithm=aimd initialLimit=5 minLimit=2 maxLimit=50 window=PT1.5S minWindowSamples=3
	//r4c:adaptiveLimit smoothing=0.5 rttTolerance=2 longWindow=100 queueSize=3 backoffRatio=0.75
	//r4c:adaptiveLimit probeMultiplier=10 maxWait=250ms lowPriorityShare=0.5 latencyCeiling=1m30s
	Limit(ctx context.Context) error

	//r4c:adaptiveLimit algorithm=gradient2 maxWait=0 enabled=true
	Zeroes(ctx context.Context) error

	//r4c:timeout timeout=1500us cooperative=true
	Timeout(ctx context.Context) error

	//r4c:bulkhead maxConcurrent=8 maxWait=PT2S enabled=false
	Bulkhead(ctx context.Context) error

	//r4c:rateLimit limit=100 period=1m burst=20 maxWait=10ms
	RateLimit(ctx context.Context) error

	//r4c:rateLimiter 5
	RateLimiter(ctx context.Context) error

	//r4c:retry maxAttempts=4 wait=100ms multiplier=2 maxDelay=2s jitter=full
	//r4c:retry budgetRatio=0.2 budgetWindow=10s budgetMinRetries=5
	Retry(ctx context.Context) error

	//r4c:breaker windowType=time-based windowSize=50 windowDuration=30s minimumCalls=5
	//r4c:breaker failureRateThreshold=0.25 slowCallRateThreshold=0.75 slowCallDuration=3s
	//r4c:breaker openFor=1m halfOpenCalls=2 maxHalfOpenWait=5s
	Breaker(ctx context.Context) error

	//r4c:circuitBreaker name="a shared breaker" windowType=COUNT_BASED
	CircuitBreaker(ctx context.Context) error

	//r4c:hedge delay=20ms maxHedged=2
	Hedge(ctx context.Context) error

	//r4c:hedge 5ms
	HedgeShort(ctx context.Context) error

	//r4c:fallback cached
	Fallback(ctx context.Context) (string, error)

	//r4c:fallback config=cached enabled=false name=fb
	FallbackOff(ctx context.Context) (string, error)
}
