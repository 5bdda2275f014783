package r4chttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
)

// DefaultDrainLimit is how much of a discarded response's body a
// [Transport] reads, by default, so that its connection can serve another
// request; a longer body is cut off and its connection closed.
const DefaultDrainLimit = 64 << 10

// DefaultMaxRetryAfter is the longest Retry-After a Transport lets a
// retry wait for, by default.
const DefaultMaxRetryAfter = 30 * time.Second

// drainWait bounds the time spent draining a response that lost a hedge
// or came after the call was answered.
const drainWait = 100 * time.Millisecond

// ClientConfig configures a [Transport]. The zero value of every field is
// its default.
type ClientConfig struct {
	// Base sends the requests. Default http.DefaultTransport.
	Base http.RoundTripper
	// Clock is the registry's clock (reg.Clock()): the attempt deadlines
	// of the pipeline's timeout and the HTTP-date form of Retry-After are
	// read on it. Default: the system clock.
	Clock policy.Clock
	// Failure reports whether a response is a failure: the pipeline sees a
	// [*StatusError] (retried by a retry, counted by a breaker). Default:
	// a 5xx or 429 status.
	Failure func(*http.Response) bool
	// Drop reports whether a failure is an overload signal: the
	// StatusError is a drop for an adaptive limit whose DropIf is
	// [IsDrop]. A failure that is not a drop frees its slot with no
	// sample. Default: a 503 or 429 status.
	Drop func(*http.Response) bool
	// Idempotent reports whether a request may be sent more than once
	// whatever happened to the first attempt: such a request is retried
	// after a transport error and hedged. Any other request is hedged
	// never and retried only after a response that says it was not
	// processed (429, 503) or a rejection by a policy (which sent
	// nothing). Default: GET, HEAD, OPTIONS, TRACE, PUT and DELETE, and a
	// request with an Idempotency-Key or X-Idempotency-Key header.
	Idempotent func(*http.Request) bool
	// MaxRetryAfter is the longest Retry-After a retry waits for: a
	// failure that asks for longer is not retried ([NotRetryable]), and
	// the caller gets its response at once. Not negative. Default
	// [DefaultMaxRetryAfter] (30s).
	MaxRetryAfter time.Duration
	// DrainLimit is how many bytes of a discarded response's body are
	// read before it is closed, so that its connection can be used again;
	// it is also how much of a failure's body is read ahead. Not
	// negative. Default [DefaultDrainLimit] (64 KiB).
	DrainLimit int64
}

// Transport is an http.RoundTripper that sends each request through a
// pipeline whose result is the *http.Response. Make it with
// [NewTransport] (or [NewClient]); it is safe for concurrent use.
//
// Each attempt (a retry's, a hedge's) sends the request once through the
// base transport:
//
//   - A request with a body is sent again with a body from
//     Request.GetBody (http.NewRequest sets it for the usual bodies); a
//     request that has none is sent once, and a second attempt fails,
//     unsent, with [ErrBodyNotReplayable].
//   - A response whose status ClientConfig.Failure accepts (5xx, 429)
//     is a [*StatusError] for the pipeline, a drop if ClientConfig.Drop
//     accepts it (503, 429), with the wait its Retry-After asks for
//     (seconds or an HTTP-date), which a retry whose WaitFunc is
//     [retry.RetryAfterWait] honours. If the pipeline gives up on it,
//     RoundTrip returns that response with a nil error.
//   - The latency the adaptive limit measures runs to the response's
//     headers: an attempt ends, and frees its slot, when the headers
//     arrive, not when the body is read.
//   - The ctx of the attempt that wins lives until the caller closes the
//     response's body: the body reads in full after RoundTrip returns,
//     under the timeout's deadline, in both timeout modes.
//   - Every response that is not returned (a retried attempt's, a
//     hedge's loser) is drained, up to DrainLimit, and closed.
//
// A pipeline error is returned as is (http.Client wraps it in a
// *url.Error, which unwraps to it): errors.Is(err, policy.ErrRejected)
// tells a rejection.
type Transport struct {
	base       http.RoundTripper
	clock      policy.Clock
	failure    func(*http.Response) bool
	drop       func(*http.Response) bool
	idempotent func(*http.Request) bool
	drainLimit int64
	maxWait    time.Duration
	bound      *pipeline.Bound[*http.Response, *roundTrip]
}

var _ http.RoundTripper = (*Transport)(nil)

// NewTransport returns a Transport that sends requests through p. It
// returns a *r4c.ConfigError, and no Transport, for a nil p
// (R4C-REG-005), a negative DrainLimit (R4C-ATR-005) or a negative
// MaxRetryAfter (R4C-ATR-004).
func NewTransport(p *pipeline.Pipeline[*http.Response], cfg ClientConfig) (*Transport, error) {
	if p == nil {
		return nil, &r4c.ConfigError{Code: r4c.CodeBuilder, Key: "r4chttp.NewTransport", Value: "nil", Rule: "the pipeline must not be nil"}
	}
	if cfg.DrainLimit < 0 {
		return nil, &r4c.ConfigError{Code: r4c.CodeOutOfRange, Key: "r4chttp.ClientConfig.DrainLimit",
			Value: strconv.FormatInt(cfg.DrainLimit, 10), Rule: "must not be negative"}
	}
	if cfg.MaxRetryAfter < 0 {
		return nil, &r4c.ConfigError{Code: r4c.CodeNegativeDuration, Key: "r4chttp.ClientConfig.MaxRetryAfter",
			Value: cfg.MaxRetryAfter.String(), Rule: "must not be negative"}
	}
	t := &Transport{
		base:       cfg.Base,
		clock:      cfg.Clock,
		failure:    cfg.Failure,
		drop:       cfg.Drop,
		idempotent: cfg.Idempotent,
		drainLimit: cfg.DrainLimit,
		maxWait:    cfg.MaxRetryAfter,
	}
	if t.maxWait == 0 {
		t.maxWait = DefaultMaxRetryAfter
	}
	if t.base == nil {
		t.base = http.DefaultTransport
	}
	if t.clock == nil {
		t.clock = policy.System
	}
	if t.failure == nil {
		t.failure = defaultFailure
	}
	if t.drop == nil {
		t.drop = defaultDrop
	}
	if t.idempotent == nil {
		t.idempotent = Idempotent
	}
	if t.drainLimit == 0 {
		t.drainLimit = DefaultDrainLimit
	}
	t.bound = pipeline.Bind(p, send)
	return t, nil
}

func defaultFailure(r *http.Response) bool {
	return r.StatusCode >= 500 || r.StatusCode == http.StatusTooManyRequests
}

func defaultDrop(r *http.Response) bool {
	return r.StatusCode == http.StatusServiceUnavailable || r.StatusCode == http.StatusTooManyRequests
}

// Idempotent reports whether r may be sent twice: its method is GET, HEAD,
// OPTIONS, TRACE, PUT or DELETE, or it has an Idempotency-Key or
// X-Idempotency-Key header. It is ClientConfig.Idempotent's default.
func Idempotent(r *http.Request) bool {
	switch r.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	_, a := r.Header["Idempotency-Key"]
	_, b := r.Header["X-Idempotency-Key"]
	return a || b
}

// RoundTrip implements http.RoundTripper: it sends req through the
// pipeline and returns the response of the attempt that won, or the
// pipeline's error.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	rt := &roundTrip{
		t:          t,
		req:        req,
		idempotent: t.idempotent(req),
		replayable: req.Body == nil || req.Body == http.NoBody || req.GetBody != nil,
	}
	resp, err := t.bound.ExecuteContext(req.Context(), rt)
	return rt.finish(resp, err)
}

// CloseIdleConnections closes the idle connections of the base transport,
// if it has such a method (http.Transport has): http.Client's
// CloseIdleConnections reaches it through this one.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// roundTrip is one RoundTrip: its request and the responses its attempts
// got.
type roundTrip struct {
	t          *Transport
	req        *http.Request
	idempotent bool
	replayable bool

	mu       sync.Mutex
	attempts int              // attempts started
	inFlight int              // attempts waiting for their response
	resps    []*http.Response // the responses of the attempts, until finish
	done     bool             // finish ran: a late response is discarded
}

// send is the function the pipeline runs: one attempt.
func send(ctx context.Context, rt *roundTrip) (*http.Response, error) {
	t := rt.t
	rt.mu.Lock()
	if rt.done {
		rt.mu.Unlock()
		return nil, errLate
	}
	if rt.inFlight > 0 && !rt.idempotent {
		rt.mu.Unlock()
		return nil, errNotIdempotent
	}
	rt.attempts++
	n := rt.attempts
	rt.inFlight++
	rt.mu.Unlock()
	defer rt.landed()

	req := rt.req
	body := req.Body
	if n > 1 && body != nil && body != http.NoBody {
		if req.GetBody == nil {
			return nil, errNotReplayable
		}
		b, err := req.GetBody()
		if err != nil {
			return nil, &onceError{err}
		}
		body = b
	}

	// The attempt's ctx: the caller's, with the pipeline's deadline, and
	// cancelled with the pipeline's ctx only until the response arrives.
	// After that it lives until the body is closed.
	actx, cancel := attemptContext(ctx, req.Context(), t.clock)
	stop := context.AfterFunc(ctx, cancel)
	r := req.WithContext(actx)
	r.Body = body
	resp, err := t.base.RoundTrip(r)
	if !stop() {
		// The pipeline's ctx ended while the request was in flight (a
		// timeout, a hedge that another attempt won, the caller): the
		// attempt is abandoned.
		if err == nil {
			closeBody(resp)
		}
		if err == nil || errors.Is(err, context.Canceled) {
			err = ctx.Err()
		}
		cancel()
		return nil, err
	}
	if err != nil {
		cancel()
		if !rt.replayable || !rt.idempotent {
			return nil, &onceError{err}
		}
		return nil, err
	}
	resp.Body = newBody(resp.Body, cancel)
	if !t.failure(resp) {
		if !rt.keep(resp) {
			t.discard(resp)
			return nil, errLate
		}
		return resp, nil
	}
	t.readAhead(resp)
	se := &StatusError{Status: resp.StatusCode, Response: resp, drop: t.drop(resp)}
	if v := resp.Header.Get("Retry-After"); v != "" {
		se.Wait, _ = ParseRetryAfter(v, t.clock.Now())
	}
	if !rt.keep(resp) {
		t.discard(resp)
		return nil, se
	}
	processed := resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable
	if !rt.replayable || (!rt.idempotent && processed) || se.Wait > t.maxWait {
		return nil, &onceError{se}
	}
	return nil, se
}

// attemptContext returns the ctx of an attempt: parent (the request's
// ctx) with pctx's (the pipeline's) deadline if that is earlier, on clk.
func attemptContext(pctx, parent context.Context, clk policy.Clock) (context.Context, context.CancelFunc) {
	if d, ok := pctx.Deadline(); ok {
		if pd, ok := parent.Deadline(); !ok || d.Before(pd) {
			return clk.WithDeadline(parent, d)
		}
	}
	return context.WithCancel(parent)
}

// landed counts an attempt that has its outcome.
func (rt *roundTrip) landed() {
	rt.mu.Lock()
	rt.inFlight--
	rt.mu.Unlock()
}

// keep records an attempt's response, unless the RoundTrip has returned.
func (rt *roundTrip) keep(resp *http.Response) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.done {
		return false
	}
	rt.resps = append(rt.resps, resp)
	return true
}

// finish picks the response RoundTrip returns and discards the others.
func (rt *roundTrip) finish(resp *http.Response, err error) (*http.Response, error) {
	rt.mu.Lock()
	rt.done = true
	resps := rt.resps
	rt.resps = nil
	rt.mu.Unlock()

	final := resp
	if err != nil {
		if se, ok := errors.AsType[*StatusError](err); ok && se.Response != nil {
			for _, r := range resps {
				if r == se.Response {
					final, err = r, nil
					break
				}
			}
		}
	}
	for _, r := range resps {
		if r != final {
			rt.t.discard(r)
		}
	}
	if err != nil {
		return nil, err
	}
	if final == nil {
		return nil, errNoResponse
	}
	return final, nil
}

var errNoResponse = errors.New("r4c: http: the pipeline returned no response")

// errLate is what an attempt returns when the RoundTrip it belongs to has
// returned already (its response, if any, is discarded).
var errLate = errors.New("r4c: http: the round trip was answered already")

// readAhead reads up to DrainLimit of a failure's body into memory: when
// that is the whole body, the connection is free at once and the body
// still reads in full from memory; otherwise the rest stays unread.
func (t *Transport) readAhead(resp *http.Response) {
	b, ok := resp.Body.(*body)
	if !ok {
		return
	}
	var buf bytes.Buffer
	_, err := io.CopyN(&buf, b.rc, t.drainLimit+1)
	switch {
	case err == io.EOF || (err == nil && int64(buf.Len()) <= t.drainLimit):
		_ = b.rc.Close()
		b.cancel()
		b.rc = io.NopCloser(bytes.NewReader(buf.Bytes()))
	case err != nil:
		b.rc = readCloser{io.MultiReader(bytes.NewReader(buf.Bytes()), errReader{err}), b.rc}
	default:
		b.rc = readCloser{io.MultiReader(bytes.NewReader(buf.Bytes()), b.rc), b.rc}
	}
}

// discard drains resp's body, up to DrainLimit and for at most drainWait,
// and closes it.
func (t *Transport) discard(resp *http.Response) {
	b, ok := resp.Body.(*body)
	if !ok {
		closeBody(resp)
		return
	}
	dctx, dcancel := t.clock.WithDeadline(context.Background(), t.clock.Now().Add(drainWait))
	stop := context.AfterFunc(dctx, b.cancel)
	_, _ = io.CopyN(io.Discard, b.rc, t.drainLimit)
	stop()
	dcancel()
	_ = b.Close()
}

func closeBody(resp *http.Response) {
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
}

// body is a response's body: closing it ends its attempt's ctx.
type body struct {
	rc     io.ReadCloser
	cancel context.CancelFunc
}

func newBody(rc io.ReadCloser, cancel context.CancelFunc) io.ReadCloser {
	b := &body{rc: rc, cancel: cancel}
	if w, ok := rc.(io.Writer); ok {
		// A 101 Switching Protocols body is writable: keep it so.
		return &rwBody{body: b, w: w}
	}
	return b
}

func (b *body) Read(p []byte) (int, error) { return b.rc.Read(p) }

// Close closes the body and ends its attempt's ctx.
func (b *body) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

// rwBody is the writable body of a 101 response.
type rwBody struct {
	*body
	w io.Writer
}

func (b *rwBody) Write(p []byte) (int, error) { return b.w.Write(p) }

type readCloser struct {
	io.Reader
	io.Closer
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
