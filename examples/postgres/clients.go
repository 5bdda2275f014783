package main

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// clientNames are the clients the demo knows, in the order of its table:
// no limit, a bulkhead at the knee, r4c's four algorithms, and two peers.
var clientNames = []string{"none", "bulkhead", "gradient2", "aimd", "vegas", "little", "failsafe-go", "go-concurrency-limits"}

func knownClient(name string) bool { return slices.Contains(clientNames, name) }

// A client sends the queries of one run.
type client interface {
	// label says what the client is, for the table.
	label() string
	// do sends one query and waits for its outcome.
	do(ctx context.Context) error
	// limit returns the current concurrency limit; ok is false without one.
	limit() (limit int, ok bool)
}

// newClient returns the client called name: every one gives up on a query
// after deadline; knee is the bulkhead's size; initial, when positive, is
// the adaptive limits' initial limit (0: their default, 20 for all).
func newClient(name string, knee, initial int, deadline time.Duration, q func(context.Context) error) (client, error) {
	if initial <= 0 {
		initial = adaptivelimit.DefaultInitialLimit
	}
	switch name {
	case "none":
		return &unlimited{deadline: deadline, q: q}, nil
	case "bulkhead":
		return newBulkheaded(knee, deadline, q)
	case "failsafe-go":
		return newFailsafeClient(initial, deadline, q), nil
	case "go-concurrency-limits":
		return newGCLClient(initial, deadline, q)
	}
	var alg adaptivelimit.Algorithm
	if err := alg.UnmarshalText([]byte(name)); err != nil {
		return nil, fmt.Errorf("client %q: %w", name, err)
	}
	return newAdaptive(alg, initial, deadline, q)
}

// unlimited sends every query straight to the server, and gives up after
// the deadline: a client without r4c.
type unlimited struct {
	deadline time.Duration
	q        func(context.Context) error
}

func (u *unlimited) label() string      { return "no limit" }
func (u *unlimited) limit() (int, bool) { return 0, false }
func (u *unlimited) do(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, u.deadline)
	defer cancel()
	err := u.q(ctx)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // answered, but too late: r4c's timeout counts it so too
	}
	return err
}

// query adapts the query to the pipeline's function type.
type query func(context.Context) error

func (q query) run(ctx context.Context) (struct{}, error) { return struct{}{}, q(ctx) }

// bulkheaded lets at most knee queries run at once and rejects the others
// at once: a fixed limit at the capacity the sweep measured. Outermost
// first:
//
//	timeout → bulkhead → the query
type bulkheaded struct {
	p    *pipeline.Pipeline[struct{}]
	h    *bulkhead.Handle
	call func(context.Context) (struct{}, error)
}

func newBulkheaded(knee int, deadline time.Duration, q func(context.Context) error) (*bulkheaded, error) {
	reg, err := r4c.NewRegistry()
	if err != nil {
		return nil, err
	}
	p, err := pipeline.NewBuilder[struct{}](reg, "postgres").
		Timeout(func(c *timeout.Config) {
			c.Timeout = deadline
			c.Cooperative = true // pgx returns once its ctx is done: no goroutine per call
		}).
		Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = knee }).
		Build()
	if err != nil {
		return nil, err
	}
	h, err := reg.Bulkhead("postgres")
	if err != nil {
		return nil, err
	}
	return &bulkheaded{p: p, h: h, call: query(q).run}, nil
}

func (b *bulkheaded) label() string {
	return fmt.Sprintf("bulkhead %d (the knee)", b.h.MaxConcurrent())
}
func (b *bulkheaded) limit() (int, bool) { return b.h.MaxConcurrent(), true }
func (b *bulkheaded) do(ctx context.Context) error {
	_, err := b.p.ExecuteContext(ctx, b.call)
	return err
}

// adaptive puts r4c's adaptive limit in front of the query, at its
// defaults but for the algorithm (and the initial limit, if -initial-limit
// sets it): what one line of configuration gives.
// Outermost first:
//
//	adaptive limit → timeout → the query
//
// so a query that times out is an overload signal to the limit (a drop).
type adaptive struct {
	p    *pipeline.Pipeline[struct{}]
	h    *adaptivelimit.Handle
	call func(context.Context) (struct{}, error)
}

func newAdaptive(alg adaptivelimit.Algorithm, initial int, deadline time.Duration, q func(context.Context) error) (*adaptive, error) {
	reg, err := r4c.NewRegistry()
	if err != nil {
		return nil, err
	}
	p, err := pipeline.NewBuilder[struct{}](reg, "postgres").
		AdaptiveLimit(func(c *adaptivelimit.Config) {
			c.Algorithm = alg
			c.InitialLimit = initial
		}).
		Timeout(func(c *timeout.Config) {
			c.Timeout = deadline
			c.Cooperative = true
		}).
		Build()
	if err != nil {
		return nil, err
	}
	h, err := reg.AdaptiveLimit("postgres")
	if err != nil {
		return nil, err
	}
	return &adaptive{p: p, h: h, call: query(q).run}, nil
}

func (a *adaptive) label() string      { return "r4c " + a.h.Config().Algorithm.String() }
func (a *adaptive) limit() (int, bool) { return a.h.Limit(), true }
func (a *adaptive) do(ctx context.Context) error {
	_, err := a.p.ExecuteContext(ctx, a.call)
	return err
}

// counting counts the queries a client has in flight.
type counting struct {
	client
	n atomic.Int64
}

func (c *counting) do(ctx context.Context) error {
	c.n.Add(1)
	defer c.n.Add(-1)
	return c.client.do(ctx)
}

func (c *counting) inFlight() int { return int(c.n.Load()) }
