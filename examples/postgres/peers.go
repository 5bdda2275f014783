package main

import (
	"context"
	"errors"
	"time"

	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/platinummonkey/go-concurrency-limits/core"
	gcllimit "github.com/platinummonkey/go-concurrency-limits/limit"
	gcllimiter "github.com/platinummonkey/go-concurrency-limits/limiter"
	"github.com/platinummonkey/go-concurrency-limits/strategy"

	"github.com/resilience4cata/r4c/policy"
)

// The peers' adaptive limiters, set up as the simulator sets them up
// (sim/limiter.go), so that the two comparisons agree: at their defaults,
// rejecting at once when full, between 1 and 200 from 20 (or
// -initial-limit).
const (
	peerInitial  = 20
	peerMaxLimit = 200
)

// errPeerRejected is what a peer's rejection returns: a policy.RejectedError,
// so that it is counted as r4c's rejections are.
var errPeerRejected = &policy.RejectedError{Kind: "peer", Instance: "postgres", Err: errors.New("peer limit exceeded")}

// failsafeClient is failsafe-go's adaptivelimiter at its defaults (a p90
// of a 1-30 s window of at least 50 samples, max limit factor 5), asked
// for a permit without waiting, in front of the deadline. Every query
// that was admitted is recorded, as failsafe-go's executor records a call
// that an inner timeout ended.
type failsafeClient struct {
	l        adaptivelimiter.AdaptiveLimiter[any]
	deadline time.Duration
	q        func(context.Context) error
}

func newFailsafeClient(initial int, deadline time.Duration, q func(context.Context) error) *failsafeClient {
	l := adaptivelimiter.NewBuilder[any]().WithLimits(1, peerMaxLimit, uint(initial)).Build()
	return &failsafeClient{l: l, deadline: deadline, q: q}
}

func (f *failsafeClient) label() string      { return "failsafe-go" }
func (f *failsafeClient) limit() (int, bool) { return f.l.Limit(), true }
func (f *failsafeClient) do(ctx context.Context) error {
	permit, ok := f.l.TryAcquirePermit()
	if !ok {
		return errPeerRejected
	}
	defer permit.Record()
	return (&unlimited{deadline: f.deadline, q: f.q}).do(ctx)
}

// gclClient is go-concurrency-limits' Gradient2 (queue 4, smoothing 0.2,
// long window 600; its minimum 1 where its default constructor sets 20)
// under its DefaultLimiter at its defaults (windows of 1 s and 100
// samples), in front of the deadline. A query that timed out is reported
// as dropped, the others as successes.
type gclClient struct {
	l        *gcllimiter.DefaultLimiter
	deadline time.Duration
	q        func(context.Context) error
}

func newGCLClient(initial int, deadline time.Duration, q func(context.Context) error) (*gclClient, error) {
	g, err := gcllimit.NewGradient2Limit("postgres", initial, peerMaxLimit, 1,
		func(int) int { return 4 }, 0.2, 600, gcllimit.NoopLimitLogger{}, core.EmptyMetricRegistryInstance)
	if err != nil {
		return nil, err
	}
	l, err := gcllimiter.NewDefaultLimiter(g, 1e9, 1e9, 1e5, 100,
		strategy.NewSimpleStrategy(initial), gcllimit.NoopLimitLogger{}, core.EmptyMetricRegistryInstance)
	if err != nil {
		return nil, err
	}
	return &gclClient{l: l, deadline: deadline, q: q}, nil
}

func (g *gclClient) label() string      { return "go-concurrency-limits" }
func (g *gclClient) limit() (int, bool) { return g.l.EstimatedLimit(), true }
func (g *gclClient) do(ctx context.Context) error {
	listener, ok := g.l.Acquire(ctx)
	if !ok {
		return errPeerRejected
	}
	err := (&unlimited{deadline: g.deadline, q: g.q}).do(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		listener.OnDropped()
	} else {
		listener.OnSuccess()
	}
	return err
}
