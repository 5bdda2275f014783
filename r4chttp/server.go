package r4chttp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/internal/gate"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// ServerConfig configures a [Handler]. The zero value of every field is
// its default.
type ServerConfig struct {
	// RejectStatus is the status of a request the pipeline rejected
	// (errors.Is(err, policy.ErrRejected): a full adaptive limit or
	// bulkhead, an open breaker), in [400, 599]. Default 503.
	RejectStatus int
	// RateLimitStatus is the status of a request a rate limiter refused,
	// in [400, 599]. Default 429. Its Retry-After header tells when the
	// limiter will have a permit.
	RateLimitStatus int
	// TimeoutStatus is the status of a request whose pipeline timeout
	// fired before the handler wrote anything, in [400, 599]. Default 503.
	TimeoutStatus int
	// RejectBody, when not empty, is the body of a rejection, as
	// text/plain; charset=utf-8. Default: no body.
	RejectBody string
	// OnReject, when set, answers a rejection instead of the above: it gets
	// the pipeline's error and writes the whole response. It must not keep
	// w or r.
	OnReject func(w http.ResponseWriter, r *http.Request, err error)
	// Drop reports whether a status the handler wrote is an overload
	// signal: the pipeline sees a [*StatusError] that [IsDrop] accepts (a
	// drop for an adaptive limit whose DropIf is IsDrop, a failure for a
	// breaker). Any other status is a success, whose latency is a sample.
	// Default: status >= 500.
	Drop func(status int) bool
	// PriorityHeader, when set, names the request header that gives a
	// request's priority for the adaptive limit: "low", "normal" or "high"
	// (any case), or an integer (below zero is low, above is high). A
	// missing or unknown value is normal. Default: none.
	PriorityHeader string
	// Priority, when set, gives a request's priority; it wins over
	// PriorityHeader. It must be safe for concurrent use.
	Priority func(*http.Request) adaptivelimit.Priority
	// Bypass, when set, sends the requests for which it returns true
	// straight to the handler, outside the pipeline: health checks,
	// metrics, long-lived connections. It must be safe for concurrent use.
	Bypass func(*http.Request) bool
}

// Handler is an http.Handler that runs each request's handler through a
// pipeline: server-side load shedding with an adaptive limit, and any
// other policy a server pipeline may have (a rate limiter, a breaker, a
// bulkhead, a cooperative timeout). Make it with [NewHandler]; it is safe
// for concurrent use.
//
// A request the pipeline rejects is answered at once, without calling the
// handler (see [ServerConfig]). An admitted request holds its slot while
// the handler runs, streaming included, until the handler returns; the
// latency the adaptive limit records runs to that moment. Then:
//
//   - a status Drop accepts (by default 5xx) is a drop;
//   - a timeout of the pipeline is a drop (the adaptive limit's default
//     DropOn); the handler's ctx carries the deadline, and if the handler
//     wrote nothing, the response is TimeoutStatus;
//   - a client that went away (the request's ctx was cancelled) is no
//     sample: the slot is freed and nothing is learned;
//   - any other status, and a hijacked connection, is a success whose
//     latency is a sample.
//
// The ResponseWriter the handler gets keeps http.Flusher, http.Hijacker
// and io.ReaderFrom, and unwraps (Unwrap) for http.ResponseController.
// The handler always returns before ServeHTTP does, even when the
// pipeline's timeout is detached.
type Handler struct {
	next            http.Handler
	bound           *pipeline.Bound[int, *serverCall]
	rejectStatus    int
	rateLimitStatus int
	timeoutStatus   int
	rejectBody      []byte
	onReject        func(http.ResponseWriter, *http.Request, error)
	drop            func(int) bool
	priorityHeader  string
	priority        func(*http.Request) adaptivelimit.Priority
	bypass          func(*http.Request) bool
}

var _ http.Handler = (*Handler)(nil)

// NewHandler returns h wrapped in p, configured by cfg. p's result is the
// status the handler wrote (a fallback's value is the status written when
// the pipeline falls back without calling the handler).
//
// It returns a *r4c.ConfigError, and no Handler, for a nil p or h
// (R4C-REG-005), a status outside [400, 599] (R4C-ATR-005), and a
// pipeline with a retry or a hedge (R4C-ATR-010): a handler writes its
// response once, so it cannot be called again.
func NewHandler(p *pipeline.Pipeline[int], h http.Handler, cfg ServerConfig) (*Handler, error) {
	if p == nil {
		return nil, &r4c.ConfigError{Code: r4c.CodeBuilder, Key: "r4chttp.NewHandler", Value: "nil", Rule: "the pipeline must not be nil"}
	}
	if h == nil {
		return nil, &r4c.ConfigError{Code: r4c.CodeBuilder, Key: "r4chttp.NewHandler", Value: "nil", Rule: "the handler must not be nil"}
	}
	for _, k := range p.Policies() {
		if k == "retry" || k == "hedge" {
			return nil, &r4c.ConfigError{Code: r4c.CodeCombination, Key: "r4chttp.NewHandler", Value: p.Name() + "." + k,
				Rule: "a server pipeline must not have a retry or a hedge: a handler writes its response once"}
		}
	}
	hd := &Handler{
		next:            h,
		rejectStatus:    cfg.RejectStatus,
		rateLimitStatus: cfg.RateLimitStatus,
		timeoutStatus:   cfg.TimeoutStatus,
		onReject:        cfg.OnReject,
		drop:            cfg.Drop,
		priorityHeader:  http.CanonicalHeaderKey(cfg.PriorityHeader),
		priority:        cfg.Priority,
		bypass:          cfg.Bypass,
	}
	for _, s := range []struct {
		key string
		v   *int
		def int
	}{{"RejectStatus", &hd.rejectStatus, http.StatusServiceUnavailable},
		{"RateLimitStatus", &hd.rateLimitStatus, http.StatusTooManyRequests},
		{"TimeoutStatus", &hd.timeoutStatus, http.StatusServiceUnavailable}} {
		if *s.v == 0 {
			*s.v = s.def
		}
		if *s.v < 400 || *s.v > 599 {
			return nil, &r4c.ConfigError{Code: r4c.CodeOutOfRange, Key: "r4chttp.ServerConfig." + s.key, Value: strconv.Itoa(*s.v),
				Rule: "must be an error status, in [400, 599]"}
		}
	}
	if cfg.RejectBody != "" {
		hd.rejectBody = []byte(cfg.RejectBody)
	}
	if hd.drop == nil {
		hd.drop = serverError
	}
	hd.bound = pipeline.Bind(p, serve)
	return hd, nil
}

// Middleware returns a function that wraps a handler with [NewHandler](p,
// h, cfg), after checking p and cfg once: it returns the same errors as
// NewHandler for them.
func Middleware(p *pipeline.Pipeline[int], cfg ServerConfig) (func(http.Handler) http.Handler, error) {
	if _, err := NewHandler(p, http.NotFoundHandler(), cfg); err != nil {
		return nil, err
	}
	return func(h http.Handler) http.Handler {
		hd, err := NewHandler(p, h, cfg)
		if err != nil {
			// Only a nil h can fail here: answer like a server without one.
			return http.NotFoundHandler()
		}
		return hd
	}, nil
}

func serverError(status int) bool { return status >= 500 }

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.bypass != nil && h.bypass(r) {
		h.next.ServeHTTP(w, r)
		return
	}
	ctx := r.Context()
	if p, ok := h.priorityOf(r); ok {
		ctx = adaptivelimit.WithPriority(ctx, p)
	}
	sc := &serverCall{h: h, rw: w, req: r}
	v, err := h.bound.ExecuteContext(ctx, sc)
	ran := sc.settle()
	if sc.started() {
		return // the handler answered (or took the connection)
	}
	if r.Context().Err() != nil {
		return // the client went away: nobody to answer
	}
	switch {
	case err == nil && !ran:
		// A fallback answered for the handler: its value is the status.
		if v < 100 || v > 999 {
			v = h.rejectStatus
		}
		w.WriteHeader(v)
	case err == nil:
		// The handler wrote nothing: net/http answers 200 when we return.
	case errors.Is(err, policy.ErrRejected) && !ran:
		h.reject(w, r, err)
	case errors.Is(err, timeout.ErrCallTimeout):
		w.WriteHeader(h.timeoutStatus)
	default:
		w.WriteHeader(h.rejectStatus)
	}
}

// reject answers a request the pipeline refused.
func (h *Handler) reject(w http.ResponseWriter, r *http.Request, err error) {
	if h.onReject != nil {
		h.onReject(w, r, err)
		return
	}
	status := h.rejectStatus
	if rl, ok := errors.AsType[*ratelimit.RateLimitedError](err); ok {
		status = h.rateLimitStatus
		w.Header().Set("Retry-After", formatRetryAfter(rl.RetryAfter()))
	} else if ra, ok := errors.AsType[retryAfterError](err); ok {
		if d := ra.RetryAfter(); d > 0 {
			w.Header().Set("Retry-After", formatRetryAfter(d))
		}
	}
	if h.rejectBody == nil {
		w.WriteHeader(status)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/plain; charset=utf-8")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Length", strconv.Itoa(len(h.rejectBody)))
	w.WriteHeader(status)
	_, _ = w.Write(h.rejectBody)
}

// retryAfterError is an error that knows how long to wait before trying
// again.
type retryAfterError interface {
	error
	RetryAfter() time.Duration
}

// priorityOf returns r's priority, if the configuration gives one.
func (h *Handler) priorityOf(r *http.Request) (adaptivelimit.Priority, bool) {
	if h.priority != nil {
		return h.priority(r), true
	}
	if h.priorityHeader == "" {
		return 0, false
	}
	v := r.Header[h.priorityHeader]
	if len(v) == 0 {
		return 0, false
	}
	p := ParsePriority(v[0])
	return p, p != adaptivelimit.PriorityNormal
}

// ParsePriority reads a priority as a header carries it: "low", "normal"
// or "high" (any case, spaces around ignored), or an integer, below zero
// low and above zero high. Anything else is normal.
func ParsePriority(s string) adaptivelimit.Priority {
	s = strings.TrimSpace(s)
	switch {
	case strings.EqualFold(s, "low"):
		return adaptivelimit.PriorityLow
	case strings.EqualFold(s, "high"):
		return adaptivelimit.PriorityHigh
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil || n == 0:
		return adaptivelimit.PriorityNormal
	case n < 0:
		return adaptivelimit.PriorityLow
	}
	return adaptivelimit.PriorityHigh
}

// serverCall is one request through a Handler, and the ResponseWriter its
// handler writes to.
type serverCall struct {
	h   *Handler
	rw  http.ResponseWriter
	req *http.Request

	gate gate.Gate // the handler runs once, or never once the request is settled

	// Written by the handler's goroutine only; read after settle.
	status   int
	wrote    bool
	hijacked bool
}

// serve is the function the pipeline runs: the wrapped handler.
func serve(ctx context.Context, sc *serverCall) (int, error) {
	if !sc.gate.Enter() {
		return 0, errHandlerGone
	}
	defer sc.gate.Exit()

	r := sc.req
	if ctx != r.Context() {
		r = r.WithContext(ctx)
	}
	sc.h.next.ServeHTTP(sc, r)

	if err := sc.req.Context().Err(); err != nil {
		return sc.status, err // the client went away: no sample
	}
	if sc.hijacked {
		return 0, nil
	}
	st := sc.status
	if !sc.wrote {
		st = http.StatusOK
	}
	if sc.h.drop(st) {
		return st, &StatusError{Status: st, drop: true}
	}
	return st, nil
}

// errHandlerGone is what serve returns when it is called after the
// request was answered, or a second time.
var errHandlerGone = errors.New("r4c: http: the request was answered already")

// settle waits for a running handler to return and stops one that has not
// started from ever starting. It reports whether the handler ran.
func (sc *serverCall) settle() bool { return sc.gate.Settle() }

// started reports whether the response has begun (or the connection was
// hijacked): nothing else may be written.
func (sc *serverCall) started() bool { return sc.wrote || sc.hijacked }
