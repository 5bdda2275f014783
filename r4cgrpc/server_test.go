package r4cgrpc_test

import (
	"context"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/resilience4cata/r4c/r4cgrpc"
)

// shedding returns the server options of a server whose unary and stream
// calls go through the recommended server pipeline name.
func shedding(t *testing.T, reg *r4c.Registry, name string, cfg r4cgrpc.ServerConfig, more ...func(*pipeline.Builder[any])) []grpc.ServerOption {
	t.Helper()
	p, err := r4cgrpc.NewServerPipeline(reg, name, more...)
	require.NoError(t, err)
	u, err := r4cgrpc.UnaryServerInterceptor(p, cfg)
	require.NoError(t, err)
	s, err := r4cgrpc.StreamServerInterceptor(p, cfg)
	require.NoError(t, err)
	return []grpc.ServerOption{grpc.ChainUnaryInterceptor(u), grpc.ChainStreamInterceptor(s)}
}

func blockingCheck(entered, release chan struct{}) func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	return func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		if req.Service == "block" {
			entered <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return serving(), nil
	}
}

func TestServerRejectsWithStatusAndPushback(t *testing.T) {
	for _, c := range []struct {
		name     string
		cfg      r4cgrpc.ServerConfig
		code     codes.Code
		pushback string
	}{
		{"default", r4cgrpc.ServerConfig{}, codes.ResourceExhausted, "1000"},
		{"unavailable", r4cgrpc.ServerConfig{RejectCode: codes.Unavailable, Pushback: 250 * time.Millisecond}, codes.Unavailable, "250"},
		{"do not retry", r4cgrpc.ServerConfig{Pushback: -1}, codes.ResourceExhausted, "-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg, _ := newReg(t, 1)
			entered, release := make(chan struct{}, 1), make(chan struct{})
			calls := 0
			h := &health{check: func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
				calls++
				return blockingCheck(entered, release)(ctx, req)
			}}
			cl := startBuf(t, h, shedding(t, reg, "api", c.cfg))
			done := make(chan error, 1)
			go func() {
				_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "block"})
				done <- err
			}()
			recv(t, entered)

			var trailer metadata.MD
			_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{}, grpc.Trailer(&trailer))
			assert.Equal(t, c.code, status.Code(err))
			assert.Contains(t, status.Convert(err).Message(), "adaptive limit api exceeded")
			assert.Equal(t, []string{c.pushback}, trailer.Get(r4cgrpc.PushbackKey))
			close(release)
			require.NoError(t, recv(t, done))
			assert.Equal(t, 1, calls, "the rejected call never reached the handler")
			assert.EqualValues(t, 1, snapshot(t, reg, "api").Rejections)
		})
	}
}

func TestServerRateLimitPushbackIsTheLimitersWait(t *testing.T) {
	reg, clk := newReg(t, 10, r4c.WithRateLimitDefaults(func(c *ratelimit.Config) {
		c.Limit = 1
		c.Period = 10 * time.Second
	}))
	h := &health{check: func(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		return serving(), nil
	}}
	cl := startBuf(t, h, shedding(t, reg, "api", r4cgrpc.ServerConfig{}, func(b *pipeline.Builder[any]) { b.RateLimit(nil) }))
	_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	clk.Advance(2500 * time.Millisecond)
	var trailer metadata.MD
	_, err = cl.Check(context.Background(), &healthpb.HealthCheckRequest{}, grpc.Trailer(&trailer))
	assert.Equal(t, codes.ResourceExhausted, status.Code(err))
	assert.Equal(t, []string{"7500"}, trailer.Get(r4cgrpc.PushbackKey))
}

func TestServerOutcomesFeedTheLimit(t *testing.T) {
	for _, c := range []struct {
		code    codes.Code
		drops   int64
		windows int64
	}{
		{codes.OK, 0, 1},
		{codes.NotFound, 0, 1},
		{codes.InvalidArgument, 0, 1},
		{codes.Internal, 1, 1},
		{codes.Unavailable, 1, 1},
	} {
		t.Run(c.code.String(), func(t *testing.T) {
			reg, clk := newReg(t, 4)
			h := &health{check: func(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
				clk.Advance(time.Millisecond)
				if c.code != codes.OK {
					return nil, status.Error(c.code, "as told")
				}
				return serving(), nil
			}}
			cl := start(t, h, shedding(t, reg, "api", r4cgrpc.ServerConfig{}))
			_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
			assert.Equal(t, c.code, status.Code(err))
			if c.code != codes.OK {
				assert.Equal(t, "as told", status.Convert(err).Message(), "the handler's status reaches the client as is")
			}
			s := snapshot(t, reg, "api")
			assert.Equal(t, c.drops, s.Drops)
			assert.Equal(t, c.windows, s.Windows)
			assert.Zero(t, s.InFlight)
		})
	}
}

func TestServerClientCancelIsNoSample(t *testing.T) {
	reg, clk := newReg(t, 4)
	entered, returned := make(chan struct{}), make(chan struct{})
	h := &health{check: func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		defer close(returned)
		clk.Advance(time.Millisecond)
		close(entered)
		<-ctx.Done()
		return nil, status.FromContextError(ctx.Err()).Err()
	}}
	cl := start(t, h, shedding(t, reg, "api", r4cgrpc.ServerConfig{}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cl.Check(ctx, &healthpb.HealthCheckRequest{})
		done <- err
	}()
	recv(t, entered)
	cancel()
	assert.Equal(t, codes.Canceled, status.Code(recv(t, done)))
	recv(t, returned)
	eventually(t, func() bool { return snapshot(t, reg, "api").InFlight == 0 }, "the slot is freed")
	s := snapshot(t, reg, "api")
	assert.Zero(t, s.Windows, "no sample")
	assert.Zero(t, s.Drops)
}

func TestServerStreamHoldsItsSlotForItsLife(t *testing.T) {
	reg, _ := newReg(t, 1)
	next := make(chan struct{})
	h := &health{
		check: func(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
			return serving(), nil
		},
		watch: func(req *healthpb.HealthCheckRequest, s healthpb.Health_WatchServer) error {
			for range 3 {
				if err := s.Send(serving()); err != nil {
					return err
				}
				select {
				case <-next:
				case <-s.Context().Done():
					return s.Context().Err()
				}
			}
			return nil
		}}
	cl := start(t, h, shedding(t, reg, "api", r4cgrpc.ServerConfig{}))
	ws, err := cl.Watch(context.Background(), &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	for i := range 3 {
		m, err := ws.Recv()
		require.NoError(t, err)
		assert.Equal(t, healthpb.HealthCheckResponse_SERVING, m.Status)
		assert.Equal(t, 1, snapshot(t, reg, "api").InFlight, "the stream holds its slot")
		if i == 0 {
			_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
			assert.Equal(t, codes.ResourceExhausted, status.Code(err), "the only slot is the stream's")
			ws2, err := cl.Watch(context.Background(), &healthpb.HealthCheckRequest{})
			require.NoError(t, err)
			_, err = ws2.Recv()
			assert.Equal(t, codes.ResourceExhausted, status.Code(err), "a second stream is rejected")
		}
		next <- struct{}{}
	}
	_, err = ws.Recv()
	assert.ErrorIs(t, err, io.EOF)
	eventually(t, func() bool { return snapshot(t, reg, "api").InFlight == 0 }, "the slot is freed when the stream ends")
	_, err = cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
	assert.NoError(t, err)
}

func TestServerStreamCancelledFreesItsSlot(t *testing.T) {
	reg, _ := newReg(t, 1)
	h := &health{watch: func(req *healthpb.HealthCheckRequest, s healthpb.Health_WatchServer) error {
		if err := s.Send(serving()); err != nil {
			return err
		}
		<-s.Context().Done()
		return status.FromContextError(s.Context().Err()).Err()
	}}
	cl := start(t, h, shedding(t, reg, "api", r4cgrpc.ServerConfig{}))
	ctx, cancel := context.WithCancel(context.Background())
	ws, err := cl.Watch(ctx, &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	_, err = ws.Recv()
	require.NoError(t, err)
	assert.Equal(t, 1, snapshot(t, reg, "api").InFlight)
	cancel()
	eventually(t, func() bool { return snapshot(t, reg, "api").InFlight == 0 }, "the slot is freed")
	s := snapshot(t, reg, "api")
	assert.Zero(t, s.Windows)
	assert.Zero(t, s.Drops)
}

func TestServerPriorityAndBypass(t *testing.T) {
	reg, _ := newReg(t, 1)
	entered, release := make(chan struct{}, 1), make(chan struct{})
	var prio atomic.Int32
	h := &health{
		check: func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
			prio.Store(int32(adaptivelimit.PriorityFrom(ctx)))
			return blockingCheck(entered, release)(ctx, req)
		},
		watch: func(req *healthpb.HealthCheckRequest, s healthpb.Health_WatchServer) error { return s.Send(serving()) },
	}
	cl := startBuf(t, h, shedding(t, reg, "api", r4cgrpc.ServerConfig{
		Priority: func(ctx context.Context, method string) adaptivelimit.Priority {
			md, _ := metadata.FromIncomingContext(ctx)
			if len(md.Get("x-priority")) > 0 {
				return adaptivelimit.PriorityHigh
			}
			return adaptivelimit.PriorityNormal
		},
		Bypass: func(method string) bool { return method == healthpb.Health_Watch_FullMethodName },
	}))
	ctx := metadata.AppendToOutgoingContext(context.Background(), "x-priority", "high")
	_, err := cl.Check(ctx, &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	assert.Equal(t, adaptivelimit.PriorityHigh, adaptivelimit.Priority(prio.Load()))

	done := make(chan error, 1)
	go func() {
		_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "block"})
		done <- err
	}()
	recv(t, entered)
	_, err = cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "the limit is full")
	ws, err := cl.Watch(context.Background(), &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	_, err = ws.Recv()
	assert.NoError(t, err, "a bypassed method passes a full limit")
	close(release)
	require.NoError(t, recv(t, done))
}

func TestServerInterceptorErrors(t *testing.T) {
	reg, _ := newReg(t, 4)
	p, err := r4cgrpc.NewServerPipeline(reg, "api")
	require.NoError(t, err)
	withRetry, err := pipeline.NewBuilder[any](reg, "retrying").Retry(nil).Build()
	require.NoError(t, err)

	_, err = r4cgrpc.UnaryServerInterceptor(nil, r4cgrpc.ServerConfig{})
	assert.EqualError(t, err, "R4C-REG-005 r4cgrpc.UnaryServerInterceptor=nil: the pipeline must not be nil")
	_, err = r4cgrpc.StreamServerInterceptor(p, r4cgrpc.ServerConfig{RejectCode: codes.Internal})
	assert.EqualError(t, err, "R4C-ATR-005 r4cgrpc.ServerConfig.RejectCode=Internal: must be ResourceExhausted or Unavailable")
	_, err = r4cgrpc.UnaryServerInterceptor(withRetry, r4cgrpc.ServerConfig{})
	assert.EqualError(t, err, "R4C-ATR-010 r4cgrpc.UnaryServerInterceptor=retrying.retry: a server pipeline must not have a retry or a hedge: a handler answers once")
	assert.ErrorIs(t, err, r4c.ErrConfig)
}

func TestServerClientDeadlineIsADrop(t *testing.T) {
	// The interceptor called directly, with the ctx a server gives a call
	// whose client set a deadline: over the network the client's reset
	// and the server's timer race, and a loaded machine can miss the
	// slack this test is not about.
	reg, _ := newReg(t, 4)
	p, err := r4cgrpc.NewServerPipeline(reg, "api")
	require.NoError(t, err)
	ic, err := r4cgrpc.UnaryServerInterceptor(p, r4cgrpc.ServerConfig{})
	require.NoError(t, err)
	for _, c := range []struct {
		name  string
		ctx   func() (context.Context, context.CancelFunc)
		drops int64
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Millisecond)
		}, 1},
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, reg, "api").Drops
			ctx, cancel := c.ctx()
			defer cancel()
			_, err := ic(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/s/m"}, func(ctx context.Context, _ any) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err() // as is: gRPC would call it Unknown
			})
			assert.Error(t, err)
			s := snapshot(t, reg, "api")
			assert.Zero(t, s.InFlight)
			assert.Equal(t, c.drops, s.Drops-before)
		})
	}
}

func TestServerDetachedTimeoutWaitsForTheHandler(t *testing.T) {
	reg, clk := newReg(t, 4)
	entered := make(chan struct{})
	var returned atomic.Bool
	h := &health{check: func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		close(entered)
		<-ctx.Done() // the pipeline's deadline
		returned.Store(true)
		return serving(), nil
	}}
	cl := startBuf(t, h, shedding(t, reg, "api", r4cgrpc.ServerConfig{}, func(b *pipeline.Builder[any]) {
		b.Timeout(func(c *timeout.Config) { c.Timeout = 2 * time.Second }) // detached: the default mode
	}))
	done := make(chan error, 1)
	go func() {
		_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
		done <- err
	}()
	recv(t, entered)
	clk.Advance(2 * time.Second)
	err := recv(t, done)
	assert.Equal(t, codes.DeadlineExceeded, status.Code(err))
	assert.True(t, returned.Load(), "the handler returned before the call was answered")
	assert.EqualValues(t, 1, snapshot(t, reg, "api").Drops)
}
