package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// A client sends the requests of one run.
type client interface {
	// Name says what the client is, for the output.
	Name() string
	// Do sends one request and waits for its outcome.
	Do(ctx context.Context) error
	// Limit returns the current concurrency limit; ok is false without one.
	Limit() (limit int, ok bool)
	// InFlight returns how many requests are waiting for an answer.
	InFlight() int
}

// request is what both clients send: one GET to the server.
type request = func(context.Context) (string, error)

// protected sends each request through an r4c pipeline.
type protected struct {
	reg      *r4c.Registry
	pipeline *pipeline.Pipeline[string]
	limit    *adaptivelimit.Handle
	get      request
}

// newProtected builds the pipeline the requests go through. r4c places the
// policies in a fixed order, whatever the order of the builder calls;
// outermost first:
//
//	retry → adaptive limit → timeout → the request
//
// So a request that times out is an overload signal to the limit (a drop),
// each attempt of the retry takes a slot of its own, and a rejection by the
// limit reaches the retry as an ordinary error (here: one not to retry).
func newProtected(cfg config, get request) (*protected, error) {
	reg, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{
		// -algorithm goes in as the flat key a .properties file or the
		// environment would set: any algorithm the library knows works, and
		// a wrong name gets the library's own error message.
		"instances.backend.adaptiveLimit.algorithm": cfg.Algorithm,
	}))
	if err != nil {
		return nil, err
	}
	p, err := pipeline.NewBuilder[string](reg, "backend").
		Retry(func(c *retry.Config) {
			c.MaxAttempts = 2 // one retry, after a short random wait
			c.Wait = cfg.Service
			c.Jitter = retry.JitterFull
			c.BudgetRatio = 0.1 // retries add at most 10% to the load
			// The limit rejects when the server is full: insisting would
			// only add load. Fail fast instead.
			c.AbortOn = []error{adaptivelimit.ErrLimitExceeded}
		}).
		AdaptiveLimit(func(c *adaptivelimit.Config) {
			// A window shorter than the default 1s, so that the limit
			// adapts within the seconds of a demo; it still spans several
			// service times.
			c.Window = 4 * cfg.Service
			// A window whose average latency passes a quarter of the
			// timeout counts as overload whatever the algorithm makes of
			// it: requests are queueing and will soon time out. AIMD needs
			// this signal (it ignores latency, and would wait for the
			// timeouts); for Gradient2 and Vegas it is a safety net.
			c.LatencyCeiling = cfg.Timeout / 4
		}).
		Timeout(func(c *timeout.Config) {
			c.Timeout = cfg.Timeout
			c.Cooperative = true // net/http honours its ctx: no goroutine per call
		}).
		Build()
	if err != nil {
		return nil, err
	}
	limit, err := reg.AdaptiveLimit("backend")
	if err != nil {
		return nil, err
	}
	return &protected{reg: reg, pipeline: p, limit: limit, get: get}, nil
}

func (p *protected) Name() string {
	return "with r4c (" + p.limit.Config().Algorithm.String() + ")"
}

func (p *protected) Do(ctx context.Context) error {
	_, err := p.pipeline.ExecuteContext(ctx, p.get)
	return err
}

func (p *protected) Limit() (int, bool) { return p.limit.Limit(), true }
func (p *protected) InFlight() int      { return p.limit.InFlight() }

// unprotected sends each request straight to the server and gives up after
// the same timeout: a client without r4c.
type unprotected struct {
	timeout  time.Duration
	get      request
	inFlight atomic.Int64
}

func (u *unprotected) Name() string { return "without r4c" }

func (u *unprotected) Do(ctx context.Context) error {
	u.inFlight.Add(1)
	defer u.inFlight.Add(-1)
	ctx, cancel := context.WithTimeout(ctx, u.timeout)
	defer cancel()
	_, err := u.get(ctx)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // answered, but too late: r4c's timeout counts it so too
	}
	return err
}

func (u *unprotected) Limit() (int, bool) { return 0, false }
func (u *unprotected) InFlight() int      { return int(u.inFlight.Load()) }

// newHTTPClient returns a client that keeps enough idle connections for the
// load (the default keeps two per host and would dial for almost every
// request) and never goes through a proxy. Close it with
// CloseIdleConnections.
func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 1024,
		IdleConnTimeout:     30 * time.Second,
	}}
}

// get returns the request: GET url and read the answer.
func get(hc *http.Client, url string) request {
	return func(ctx context.Context) (string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return "", err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return "", err
		}
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("server answered %s", resp.Status)
		}
		return string(body), nil
	}
}
