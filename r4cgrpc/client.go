package r4cgrpc

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// ClientConfig configures the client interceptors. The zero value of every
// field is its default.
type ClientConfig struct {
	// Drop reports whether a status code is an overload signal: the
	// pipeline sees a [*CodeError] that [IsDrop] accepts. Default:
	// Unavailable, ResourceExhausted and DeadlineExceeded.
	Drop func(codes.Code) bool
	// Failure reports whether a status code that is not a drop is a
	// failure: the pipeline sees a CodeError (a breaker counts it, a retry
	// may retry it; an adaptive limit takes no sample). Any other code is
	// a success, whose latency is a sample, and goes to the caller as is.
	// Default: Unknown, Aborted, Internal and DataLoss.
	Failure func(codes.Code) bool
	// MaxPushback is the longest grpc-retry-pushback-ms a retry waits
	// for: a call whose server asks for longer is not retried
	// ([NotRetryable]). Not negative. Default [DefaultMaxPushback] (30s).
	MaxPushback time.Duration
	// Idempotent reports whether a method (its full name,
	// "/pkg.Service/Method") may be sent again after any failure. Other
	// methods are retried only after Unavailable or ResourceExhausted, the
	// codes that say the server did not process the call. Default: none.
	Idempotent func(method string) bool
}

// DefaultMaxPushback is the longest pushback a client interceptor lets a
// retry wait for, by default.
const DefaultMaxPushback = 30 * time.Second

type client struct {
	maxWait    time.Duration
	drop       func(codes.Code) bool
	failure    func(codes.Code) bool
	idempotent func(string) bool
}

func newClient(cfg ClientConfig) (*client, error) {
	if cfg.MaxPushback < 0 {
		return nil, &r4c.ConfigError{Code: r4c.CodeNegativeDuration, Key: "r4cgrpc.ClientConfig.MaxPushback",
			Value: cfg.MaxPushback.String(), Rule: "must not be negative"}
	}
	c := &client{maxWait: cfg.MaxPushback, drop: cfg.Drop, failure: cfg.Failure, idempotent: cfg.Idempotent}
	if c.maxWait == 0 {
		c.maxWait = DefaultMaxPushback
	}
	if c.drop == nil {
		c.drop = clientDrop
	}
	if c.failure == nil {
		c.failure = clientFailure
	}
	return c, nil
}

func clientDrop(c codes.Code) bool {
	return c == codes.Unavailable || c == codes.ResourceExhausted || c == codes.DeadlineExceeded
}

func clientFailure(c codes.Code) bool {
	switch c {
	case codes.Unknown, codes.Aborted, codes.Internal, codes.DataLoss:
		return true
	}
	return false
}

// classify turns a call's error into what the pipeline sees: nil for a
// success (the caller still gets err), ctx's error for the caller's own
// cancellation, or a *CodeError.
func (c *client) classify(ctx context.Context, method string, err error, trailer metadata.MD) error {
	if err == nil {
		return nil
	}
	if e := ctx.Err(); e != nil {
		return e // the caller's cancellation, or the pipeline's deadline
	}
	code := status.Code(err)
	drop := c.drop(code)
	if !drop && !c.failure(code) {
		return nil
	}
	ce := &CodeError{Code: code, err: err, drop: drop}
	if v := trailer.Get(PushbackKey); len(v) > 0 {
		ce.Wait, ce.pushbackN = parsePushback(v[0])
	}
	unprocessed := code == codes.Unavailable || code == codes.ResourceExhausted
	ce.noRetry = ce.pushbackN || ce.Wait > c.maxWait || !(unprocessed || c.idempotent != nil && c.idempotent(method))
	return ce
}

// unaryCall is one unary call through the client interceptor.
type unaryCall struct {
	c       *client
	method  string
	req     any
	reply   any
	cc      *grpc.ClientConn
	invoker grpc.UnaryInvoker
	opts    []grpc.CallOption
	err     error // the last attempt's error, as the caller gets it
}

func invoke(ctx context.Context, u *unaryCall) (any, error) {
	var trailer metadata.MD
	opts := append(u.opts[:len(u.opts):len(u.opts)], grpc.Trailer(&trailer))
	u.err = u.invoker(ctx, u.method, u.req, u.reply, u.cc, opts...)
	return nil, u.c.classify(ctx, u.method, u.err, trailer)
}

// attempt is the outcome of one attempt of a call through a pipeline that
// detaches: its own reply message and its status error.
type attempt struct {
	reply proto.Message
	err   error
}

// invokeApart is invoke for a pipeline that detaches (a hedge, a detached
// timeout): attempts may overlap each other and outlive the call, so each
// writes into a reply of its own, and the winner's is copied into the
// caller's once the pipeline returns.
func invokeApart(ctx context.Context, u *unaryCall) (any, error) {
	reply := u.reply.(proto.Message).ProtoReflect().New().Interface()
	var trailer metadata.MD
	opts := append(u.opts[:len(u.opts):len(u.opts)], grpc.Trailer(&trailer))
	err := u.invoker(ctx, u.method, u.req, reply, u.cc, opts...)
	if cerr := u.c.classify(ctx, u.method, err, trailer); cerr != nil {
		return nil, cerr
	}
	return &attempt{reply: reply, err: err}, nil
}

// UnaryClientInterceptor returns an interceptor that sends each unary call
// through p, configured by cfg; each attempt of a retry or a hedge invokes
// the call again with the same request. The pipeline's ctx, with its
// timeout's deadline, goes to the call. The caller gets the last
// attempt's status error, or the pipeline's error as a [*StatusError]: a
// rejection is Unavailable (ResourceExhausted for a rate limiter's), a
// timeout DeadlineExceeded, and it unwraps to the r4c error
// (errors.Is(err, policy.ErrRejected) holds).
//
// When p detaches (a hedge, or a timeout in its detached mode: see
// pipeline.Pipeline.Detaches), attempts can overlap and outlive the call:
// each then gets a reply message of its own (the reply must be a
// proto.Message), and the winning attempt's is merged into the caller's
// after the caller's is reset. With a cooperative timeout and no hedge,
// attempts write into the caller's reply directly.
//
// It returns a *r4c.ConfigError for a nil p (R4C-REG-005) and a negative
// MaxPushback (R4C-ATR-004).
func UnaryClientInterceptor(p *pipeline.Pipeline[any], cfg ClientConfig) (grpc.UnaryClientInterceptor, error) {
	if p == nil {
		return nil, &r4c.ConfigError{Code: r4c.CodeBuilder, Key: "r4cgrpc.UnaryClientInterceptor", Value: "nil", Rule: "the pipeline must not be nil"}
	}
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	if p.Detaches() {
		b := pipeline.Bind(p, invokeApart)
		return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			dst, ok := reply.(proto.Message)
			if !ok {
				return status.Error(codes.Internal, "r4c: grpc: a pipeline that detaches needs a proto.Message reply")
			}
			u := &unaryCall{c: c, method: method, req: req, reply: reply, cc: cc, invoker: invoker, opts: opts}
			v, err := b.ExecuteContext(ctx, u)
			if err != nil {
				return asStatus(err)
			}
			a, ok := v.(*attempt)
			if !ok {
				return nil // a fallback answered: the reply is left as it was
			}
			proto.Reset(dst)
			proto.Merge(dst, a.reply)
			return a.err
		}, nil
	}
	b := pipeline.Bind(p, invoke)
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		u := &unaryCall{c: c, method: method, req: req, reply: reply, cc: cc, invoker: invoker, opts: opts}
		_, err := b.ExecuteContext(ctx, u)
		if err == nil {
			return u.err // nil, or a status the configuration counts as a success
		}
		return asStatus(err)
	}, nil
}

// asStatus returns the error a caller gets for a pipeline's error: the
// status error of the call's last attempt, or the r4c error as a status
// error that unwraps to it.
func asStatus(err error) error {
	if ce, ok := errors.AsType[*CodeError](err); ok {
		return ce.err
	}
	code := codes.Unknown
	switch {
	case errors.Is(err, ratelimit.ErrRateLimited):
		code = codes.ResourceExhausted
	case errors.Is(err, policy.ErrRejected):
		code = codes.Unavailable
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	}
	return &StatusError{err: err, st: status.New(code, err.Error())}
}

// StatusError is the error a client interceptor returns for an error of
// the pipeline's own (a rejection, a timeout): a gRPC status
// (status.FromError and status.Code read it: Unavailable for a
// rejection, ResourceExhausted for a rate limiter's, DeadlineExceeded for
// a timeout, Canceled for the caller's cancellation) that unwraps to the
// r4c error, so errors.Is(err, policy.ErrRejected) holds.
type StatusError struct {
	err error
	st  *status.Status
}

// Error returns the status's text: "rpc error: code = Unavailable desc = …".
func (e *StatusError) Error() string { return e.st.Err().Error() }

// Unwrap returns the pipeline's error.
func (e *StatusError) Unwrap() error { return e.err }

// GRPCStatus returns the status.
func (e *StatusError) GRPCStatus() *status.Status { return e.st }

// StreamClientInterceptor returns an interceptor that opens each client
// stream through p, configured by cfg: the stream holds what the
// pipeline's policies hold (a slot, a permit) until it ends (RecvMsg
// returns an error or io.EOF, or its ctx is done), and the adaptive limit
// measures its whole life. A stream cannot be replayed: it returns a
// *r4c.ConfigError matching [ErrStreamRetry] (R4C-ATR-010) for a pipeline
// with a retry or a hedge, and one for a nil p (R4C-REG-005).
func StreamClientInterceptor(p *pipeline.Pipeline[any], cfg ClientConfig) (grpc.StreamClientInterceptor, error) {
	if p == nil {
		return nil, &r4c.ConfigError{Code: r4c.CodeBuilder, Key: "r4cgrpc.StreamClientInterceptor", Value: "nil", Rule: "the pipeline must not be nil"}
	}
	for _, k := range p.Policies() {
		if k == "retry" || k == "hedge" {
			return nil, &r4c.ConfigError{Code: r4c.CodeCombination, Key: "r4cgrpc.StreamClientInterceptor", Value: p.Name() + "." + k,
				Rule: ErrStreamRetry.Error(), Err: ErrStreamRetry}
		}
	}
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		var cs *clientStream
		var openErr error
		f := p.ExecuteFuture(ctx, func(sctx context.Context) *future.Future[any] {
			s, err := streamer(sctx, desc, cc, method, opts...)
			if err != nil {
				openErr = err
				return future.Failed[any](c.classifyOrFail(sctx, method, err))
			}
			cs = &clientStream{ClientStream: s, c: c, ctx: sctx, method: method, pr: future.NewPromise[any](),
				serverStreams: desc.ServerStreams}
			context.AfterFunc(sctx, cs.ctxDone)
			return cs.pr.Future()
		})
		if cs != nil {
			// The stream is open: the future completes when it ends.
			return cs, nil
		}
		_, err := f.Get(context.Background())
		if openErr != nil {
			return nil, openErr // the stream did not open: gRPC's own error
		}
		return nil, asStatus(err)
	}, nil
}

// classifyOrFail is classify for an error that must fail the future: a
// status that counts as a success becomes a plain error (no sample is
// lost: the stream never opened).
func (c *client) classifyOrFail(ctx context.Context, method string, err error) error {
	if e := c.classify(ctx, method, err, nil); e != nil {
		return e
	}
	return err
}

// clientStream ends its pipeline's future when the stream ends.
type clientStream struct {
	grpc.ClientStream
	c      *client
	ctx    context.Context
	method string
	pr     *future.Promise[any]
	once   sync.Once
	// serverStreams is false for a client-streaming call, which ends at
	// its one response.
	serverStreams bool
}

// RecvMsg receives a message; an error (io.EOF included) ends the stream,
// and so does the response of a client-streaming call.
func (s *clientStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err != nil || !s.serverStreams {
		s.end(err)
	}
	return err
}

func (s *clientStream) end(err error) {
	s.once.Do(func() {
		if err == nil || err == io.EOF {
			s.pr.Complete(nil)
			return
		}
		if e := s.c.classify(s.ctx, s.method, err, s.ClientStream.Trailer()); e != nil {
			s.pr.Fail(e)
			return
		}
		s.pr.Complete(nil)
	})
}

func (s *clientStream) ctxDone() { s.end(s.ctx.Err()) }
