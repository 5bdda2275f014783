package values

import "context"

// Client has a value that breaks a rule of every R4C-ATR code.
type Client interface {
	//r4c:adaptiveLimit window=1sec
	DurationSyntax(ctx context.Context) error
	//r4c:adaptiveLimit maxLimit=lots
	IntSyntax(ctx context.Context) error
	//r4c:adaptiveLimit algorithm=bbr
	EnumSyntax(ctx context.Context) error
	//r4c:timeout enabled=nope
	BoolSyntax(ctx context.Context) error
	//r4c:adaptiveLimit minLimit=0
	BelowOne(ctx context.Context) error
	//r4c:bulkhead maxWait=-1s
	NegativeDuration(ctx context.Context) error
	//r4c:adaptiveLimit backoffRatio=0.2
	OutOfRange(ctx context.Context) error
	//r4c:adaptiveLimit minLimit=50 maxLimit=10
	BoundsOrder(ctx context.Context) error
	//r4c:rateLimit limit=100 period=50ns
	Combination(ctx context.Context) error
	//r4c:breaker failureRateThreshold=50
	Percent(ctx context.Context) error
	//r4c:retry wait=PT1S maxDelay=500ms
	// The interface-level value is reported once, at its line.
	RetryOrder(ctx context.Context) error
}

//r4c:hedge delay=0
type Hedged interface {
	One(ctx context.Context) error
	Two(ctx context.Context) error
}
