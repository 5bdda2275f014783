package r4cgrpc

import (
	"context"
	"errors"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/internal/gate"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// DefaultPushback is the pushback a server sends, by default, with a
// rejection whose wait is unknown (an adaptive limit's, a bulkhead's, a
// breaker's): a second, the adaptive limit's default window, by which
// time the limit has adapted.
const DefaultPushback = time.Second

// ServerConfig configures the server interceptors. The zero value of every
// field is its default.
type ServerConfig struct {
	// RejectCode is the status of a call the pipeline rejected:
	// codes.ResourceExhausted (the default) or codes.Unavailable.
	RejectCode codes.Code
	// Pushback is the grpc-retry-pushback-ms a rejection carries when its
	// wait is unknown (a rate limiter's refusal carries the limiter's
	// wait). Default [DefaultPushback]; a negative Pushback sends -1,
	// which asks the client not to retry.
	Pushback time.Duration
	// Drop reports whether a handler's status code is an overload signal:
	// the pipeline sees a [*CodeError] that [IsDrop] accepts. Other codes
	// are successes, whose latency is a sample. Default: the codes that
	// say the server failed or is overloaded, as HTTP's 5xx: Unknown,
	// DeadlineExceeded, ResourceExhausted, Internal, Unavailable and
	// DataLoss. A call the client cancelled is no sample whatever its
	// code; one whose deadline passed in the server (or was cancelled
	// within 10ms of it) is DeadlineExceeded.
	Drop func(codes.Code) bool
	// Priority, when set, gives a call's priority for the adaptive limit
	// from its ctx (with its incoming metadata) and full method name.
	Priority func(ctx context.Context, method string) adaptivelimit.Priority
	// Bypass, when set, lets the calls for which it returns true reach the
	// handler outside the pipeline (health checks, reflection).
	Bypass func(method string) bool
}

type server struct {
	bound    *pipeline.Bound[any, *serverCall]
	reject   codes.Code
	pushback string
	drop     func(codes.Code) bool
	priority func(context.Context, string) adaptivelimit.Priority
	bypass   func(string) bool
}

func newServer(p *pipeline.Pipeline[any], cfg ServerConfig, where string, stream bool) (*server, error) {
	if p == nil {
		return nil, &r4c.ConfigError{Code: r4c.CodeBuilder, Key: where, Value: "nil", Rule: "the pipeline must not be nil"}
	}
	for _, k := range p.Policies() {
		if k == "retry" || k == "hedge" {
			return nil, &r4c.ConfigError{Code: r4c.CodeCombination, Key: where, Value: p.Name() + "." + k,
				Rule: "a server pipeline must not have a retry or a hedge: a handler answers once", Err: ErrStreamRetry}
		}
	}
	s := &server{reject: cfg.RejectCode, drop: cfg.Drop, priority: cfg.Priority, bypass: cfg.Bypass}
	switch s.reject {
	case codes.OK:
		s.reject = codes.ResourceExhausted
	case codes.ResourceExhausted, codes.Unavailable:
	default:
		return nil, &r4c.ConfigError{Code: r4c.CodeOutOfRange, Key: "r4cgrpc.ServerConfig.RejectCode", Value: s.reject.String(),
			Rule: "must be ResourceExhausted or Unavailable"}
	}
	switch {
	case cfg.Pushback == 0:
		s.pushback = strconv.FormatInt(int64(DefaultPushback/time.Millisecond), 10)
	case cfg.Pushback < 0:
		s.pushback = "-1"
	default:
		s.pushback = pushbackMs(cfg.Pushback)
	}
	if s.drop == nil {
		s.drop = serverDrop
	}
	s.bound = pipeline.Bind(p, serveCall)
	return s, nil
}

func serverDrop(c codes.Code) bool {
	switch c {
	case codes.Unknown, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Internal, codes.Unavailable, codes.DataLoss:
		return true
	}
	return false
}

// pushbackMs returns d in whole milliseconds, rounded up.
func pushbackMs(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Millisecond-1)/time.Millisecond), 10)
}

// UnaryServerInterceptor returns an interceptor that runs each unary call's
// handler through p, configured by cfg. It returns a *r4c.ConfigError for
// a nil p (R4C-REG-005), a pipeline with a retry or a hedge (R4C-ATR-010)
// and a RejectCode other than ResourceExhausted or Unavailable
// (R4C-ATR-005).
func UnaryServerInterceptor(p *pipeline.Pipeline[any], cfg ServerConfig) (grpc.UnaryServerInterceptor, error) {
	s, err := newServer(p, cfg, "r4cgrpc.UnaryServerInterceptor", false)
	if err != nil {
		return nil, err
	}
	return s.unary, nil
}

// StreamServerInterceptor returns an interceptor that runs each stream's
// handler through p, configured by cfg: the stream holds its slot until
// its handler returns. It returns the errors of
// [UnaryServerInterceptor].
func StreamServerInterceptor(p *pipeline.Pipeline[any], cfg ServerConfig) (grpc.StreamServerInterceptor, error) {
	s, err := newServer(p, cfg, "r4cgrpc.StreamServerInterceptor", true)
	if err != nil {
		return nil, err
	}
	return s.stream, nil
}

// serverCall is one call through a server interceptor.
type serverCall struct {
	s      *server
	ctx    context.Context // the call's own ctx
	method string
	// unary
	req     any
	handler grpc.UnaryHandler
	// stream
	srv     any
	ss      grpc.ServerStream
	shandle grpc.StreamHandler

	// Written by the handler's goroutine; read after settle.
	resp any
	err  error // the handler's error, as the caller gets it

	gate gate.Gate // the handler runs once, or never once the call is settled
}

// errHandlerGone is what serveCall returns when it is called after the
// call was answered, or a second time.
var errHandlerGone = errors.New("r4c: grpc: the call was answered already")

// settle waits for a running handler to return (a detached timeout
// returns before it does) and stops one that has not started from ever
// starting. It reports whether the handler ran.
func (c *serverCall) settle() bool { return c.gate.Settle() }

func serveCall(ctx context.Context, c *serverCall) (any, error) {
	if !c.gate.Enter() {
		return nil, errHandlerGone
	}
	defer c.gate.Exit()
	if c.handler != nil {
		c.resp, c.err = c.handler(ctx, c.req)
	} else {
		ss := c.ss
		if ctx != c.ctx {
			ss = &serverStream{ServerStream: c.ss, ctx: ctx}
		}
		c.err = c.shandle(c.srv, ss)
	}
	if c.err == nil {
		return c.resp, nil
	}
	code := status.Code(c.err)
	switch e := c.ctx.Err(); {
	case e == nil:
	case e == context.DeadlineExceeded || deadlinePassed(c.ctx):
		// The client's deadline passed in the server, whatever the
		// handler returned (its ctx's error, as is, says Unknown).
		code = codes.DeadlineExceeded
		if c.s.drop(code) {
			return nil, &CodeError{Code: code, err: status.Error(code, c.err.Error()), drop: true}
		}
		return c.resp, nil
	default:
		return nil, context.Canceled // the client went away: no sample
	}
	if c.s.drop(code) {
		return nil, &CodeError{Code: code, err: c.err, drop: true}
	}
	return c.resp, nil
}

func (s *server) ctxFor(ctx context.Context, method string) context.Context {
	if s.priority != nil {
		if p := s.priority(ctx, method); p != adaptivelimit.PriorityNormal {
			return adaptivelimit.WithPriority(ctx, p)
		}
	}
	return ctx
}

func (s *server) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.bypass != nil && s.bypass(info.FullMethod) {
		return handler(ctx, req)
	}
	c := &serverCall{s: s, ctx: ctx, method: info.FullMethod, req: req, handler: handler}
	v, err := s.bound.ExecuteContext(s.ctxFor(ctx, info.FullMethod), c)
	ran := c.settle()
	if ran && (err == nil || c.err != nil) {
		if c.err != nil {
			return nil, c.err
		}
		return c.resp, nil
	}
	if err == nil {
		return v, nil // a fallback answered
	}
	return nil, s.refuse(ctx, err, func(md metadata.MD) { _ = grpc.SetTrailer(ctx, md) })
}

func (s *server) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if s.bypass != nil && s.bypass(info.FullMethod) {
		return handler(srv, ss)
	}
	ctx := ss.Context()
	c := &serverCall{s: s, ctx: ctx, method: info.FullMethod, srv: srv, ss: ss, shandle: handler}
	_, err := s.bound.ExecuteContext(s.ctxFor(ctx, info.FullMethod), c)
	ran := c.settle()
	if ran && (err == nil || c.err != nil) {
		return c.err
	}
	if err == nil {
		return nil
	}
	return s.refuse(ctx, err, ss.SetTrailer)
}

// refuse turns a pipeline's error (the handler did not answer) into the
// call's status, with the pushback trailer for a rejection.
func (s *server) refuse(ctx context.Context, err error, trailer func(metadata.MD)) error {
	if ctx.Err() != nil {
		return status.FromContextError(ctx.Err()).Err()
	}
	if errors.Is(err, policy.ErrRejected) {
		pb := s.pushback
		if rl, ok := errors.AsType[*ratelimit.RateLimitedError](err); ok {
			pb = pushbackMs(rl.RetryAfter())
		}
		trailer(metadata.Pairs(PushbackKey, pb))
		return status.Error(s.reject, err.Error())
	}
	if errors.Is(err, timeout.ErrCallTimeout) {
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	return status.Error(codes.Unavailable, err.Error())
}

// deadlineSlack is how close to its deadline a call's cancellation counts
// as the deadline's: a client whose deadline passes resets its stream, and
// the reset may reach the server a little before the server's own timer
// (set from grpc-timeout when the call arrived) fires.
const deadlineSlack = 10 * time.Millisecond

// deadlinePassed reports whether ctx's deadline has passed, or is within
// deadlineSlack. gRPC deadlines are real time, so this reads the system
// clock.
func deadlinePassed(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !policy.System.Now().Add(deadlineSlack).Before(d)
}

// serverStream gives the handler the pipeline's ctx (with the timeout's
// deadline and the priority).
type serverStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *serverStream) Context() context.Context { return s.ctx }
