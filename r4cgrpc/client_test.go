package r4cgrpc_test

import (
	"context"
	"errors"
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
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/resilience4cata/r4c/r4cgrpc"
)

// protecting returns the dial options of a client whose unary calls go
// through p.
func protecting(t *testing.T, p *pipeline.Pipeline[any], cfg r4cgrpc.ClientConfig) []grpc.DialOption {
	t.Helper()
	u, err := r4cgrpc.UnaryClientInterceptor(p, cfg)
	require.NoError(t, err)
	return []grpc.DialOption{grpc.WithChainUnaryInterceptor(u)}
}

// manualPipeline is the recommended client pipeline without its timeout:
// a ManualClock's deadline is not a real one, and gRPC sends deadlines to
// the server as real durations.
func manualPipeline(t *testing.T, reg *r4c.Registry, name string) *pipeline.Pipeline[any] {
	t.Helper()
	p, err := r4cgrpc.NewClientPipeline(reg, name, func(b *pipeline.Builder[any]) {
		b.Retry(func(c *retry.Config) { c.SetZero("wait") })
		b.Timeout(func(c *timeout.Config) { c.Disabled = true })
	})
	require.NoError(t, err)
	return p
}

// answers returns a Check that answers with the codes in turn (OK for
// codes.OK), then the last one forever, counting calls.
func answers(n *atomic.Int32, cs ...codes.Code) func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	return func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		i := int(n.Add(1)) - 1
		c := cs[min(i, len(cs)-1)]
		if c == codes.OK {
			return serving(), nil
		}
		return nil, status.Error(c, "answer "+c.String())
	}
}

func TestClientCodesFeedThePolicies(t *testing.T) {
	for _, c := range []struct {
		code     codes.Code
		drop     bool
		failure  bool
		attempts int32
	}{
		{codes.OK, false, false, 1},
		{codes.NotFound, false, false, 1},
		{codes.Unavailable, true, true, 3},
		{codes.ResourceExhausted, true, true, 3},
		{codes.DeadlineExceeded, true, true, 1},
		{codes.Internal, false, true, 1},
	} {
		t.Run(c.code.String(), func(t *testing.T) {
			reg, clk := newReg(t, 4)
			var n atomic.Int32
			h := &health{check: func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
				clk.Advance(time.Millisecond)
				return answers(&n, c.code)(ctx, req)
			}}
			cl := startBuf(t, h, nil, protecting(t, manualPipeline(t, reg, "be"), r4cgrpc.ClientConfig{})...)
			_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
			assert.Equal(t, c.code, status.Code(err), "the caller gets the server's status")
			if c.code != codes.OK {
				assert.Equal(t, "answer "+c.code.String(), status.Convert(err).Message())
			}
			assert.Equal(t, c.attempts, n.Load(), "retried only after a code that says the call was not processed")
			s := snapshot(t, reg, "be")
			if c.drop {
				assert.Equal(t, int64(c.attempts), s.Drops)
			} else {
				assert.Zero(t, s.Drops)
			}
			if c.failure && !c.drop {
				assert.Zero(t, s.Windows, "a failure that is not a drop is no sample")
			} else {
				assert.NotZero(t, s.Windows)
			}
			bh, err := reg.Breaker("be")
			require.NoError(t, err)
			if c.failure {
				assert.Equal(t, int(c.attempts), bh.Snapshot().Failures)
			} else {
				assert.Zero(t, bh.Snapshot().Failures)
			}
		})
	}
}

func TestClientIdempotentMethodsAreRetriedAfterAnyFailure(t *testing.T) {
	reg, _ := newReg(t, 4)
	var n atomic.Int32
	h := &health{check: answers(&n, codes.Internal, codes.OK)}
	cl := startBuf(t, h, nil, protecting(t, manualPipeline(t, reg, "be"), r4cgrpc.ClientConfig{
		Idempotent: func(m string) bool { return m == healthpb.Health_Check_FullMethodName },
	})...)
	_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	assert.EqualValues(t, 2, n.Load())
}

func TestClientHonoursPushbackExactly(t *testing.T) {
	reg, clk := newReg(t, 4)
	var n atomic.Int32
	h := &health{check: func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		if n.Add(1) == 1 {
			_ = grpc.SetTrailer(ctx, metadata.Pairs(r4cgrpc.PushbackKey, "2500"))
			return nil, status.Error(codes.ResourceExhausted, "busy")
		}
		return serving(), nil
	}}
	cl := startBuf(t, h, nil, protecting(t, manualPipeline(t, reg, "be"), r4cgrpc.ClientConfig{})...)
	waits := make(chan time.Duration, 4)
	stop := reg.Events().Subscribe(func(e events.Event) {
		if a, ok := e.(events.RetryAttempt); ok {
			waits <- a.Wait
		}
	})
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
		done <- err
	}()
	assert.Equal(t, 2500*time.Millisecond, recv(t, waits))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, clk.BlockUntil(ctx, 1))
	clk.Advance(2500*time.Millisecond - time.Nanosecond)
	assert.Equal(t, 1, clk.Pending(), "still waiting a nanosecond before the pushback")
	assert.EqualValues(t, 1, n.Load())
	clk.Advance(time.Nanosecond)
	require.NoError(t, recv(t, done))
	assert.EqualValues(t, 2, n.Load())
}

func TestClientNegativePushbackIsNotRetried(t *testing.T) {
	reg, _ := newReg(t, 4)
	var n atomic.Int32
	h := &health{check: func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		n.Add(1)
		_ = grpc.SetTrailer(ctx, metadata.Pairs(r4cgrpc.PushbackKey, "-1"))
		return nil, status.Error(codes.Unavailable, "go away")
	}}
	cl := startBuf(t, h, nil, protecting(t, manualPipeline(t, reg, "be"), r4cgrpc.ClientConfig{})...)
	_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.EqualValues(t, 1, n.Load())
}

func TestClientDeadlinePropagates(t *testing.T) {
	reg, err := r4c.NewRegistry() // the system clock: gRPC sends deadlines as real durations
	require.NoError(t, err)
	p, err := r4cgrpc.NewClientPipeline(reg, "be", func(b *pipeline.Builder[any]) {
		b.Timeout(func(c *timeout.Config) { c.Timeout = 30 * time.Second })
	})
	require.NoError(t, err)
	var left atomic.Int64
	h := &health{check: func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		if d, ok := ctx.Deadline(); ok {
			left.Store(int64(time.Until(d)))
		}
		return serving(), nil
	}}
	cl := start(t, h, nil, protecting(t, p, r4cgrpc.ClientConfig{})...)
	_, err = cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	assert.Greater(t, time.Duration(left.Load()), 20*time.Second, "the server sees the pipeline's deadline")
	assert.LessOrEqual(t, time.Duration(left.Load()), 30*time.Second)
}

func TestClientRejectionIsAStatus(t *testing.T) {
	reg, _ := newReg(t, 1)
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	h := &health{check: blockingCheck(entered, release)}
	cl := startBuf(t, h, nil, protecting(t, manualPipeline(t, reg, "be"), r4cgrpc.ClientConfig{})...)
	done := make(chan error, 1)
	go func() {
		_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "block"})
		done <- err
	}()
	recv(t, entered)
	for range 5 {
		_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
		assert.Equal(t, codes.Unavailable, status.Code(err))
		assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
		assert.ErrorIs(t, err, policy.ErrRejected)
	}
	close(release)
	require.NoError(t, recv(t, done))
	bh, err := reg.Breaker("be")
	require.NoError(t, err)
	assert.Equal(t, breaker.StateClosed, bh.State(), "the limit's rejections are not the server's failures")
	assert.Zero(t, bh.Snapshot().Failures)
}

func TestClientRetryAbortsOnAnOpenBreaker(t *testing.T) {
	reg, clk := newReg(t, 4)
	var n atomic.Int32
	h := &health{check: answers(&n, codes.OK)}
	cl := startBuf(t, h, nil, protecting(t, manualPipeline(t, reg, "be"), r4cgrpc.ClientConfig{})...)
	bh, err := reg.Breaker("be")
	require.NoError(t, err)
	bh.TransitionToOpen()
	_, err = cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.ErrorIs(t, err, breaker.ErrOpen)
	assert.False(t, errors.Is(err, retry.ErrExhausted))
	assert.Zero(t, n.Load())
	assert.Zero(t, clk.Pending())
}

func TestClientStreamHoldsItsSlotUntilItEnds(t *testing.T) {
	reg, clk := newReg(t, 1)
	next := make(chan struct{})
	h := &health{watch: func(req *healthpb.HealthCheckRequest, s healthpb.Health_WatchServer) error {
		for range 2 {
			if err := s.Send(serving()); err != nil {
				return err
			}
			select {
			case <-next:
			case <-s.Context().Done():
				return nil
			}
		}
		return nil
	}}
	p, err := r4cgrpc.NewStreamClientPipeline(reg, "be")
	require.NoError(t, err)
	sc, err := r4cgrpc.StreamClientInterceptor(p, r4cgrpc.ClientConfig{})
	require.NoError(t, err)
	cl := start(t, h, nil, grpc.WithChainStreamInterceptor(sc))

	ws, err := cl.Watch(context.Background(), &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	_, err = ws.Recv()
	require.NoError(t, err)
	assert.Equal(t, 1, snapshot(t, reg, "be").InFlight, "the open stream holds the slot")
	_, err = cl.Watch(context.Background(), &healthpb.HealthCheckRequest{})
	assert.Equal(t, codes.Unavailable, status.Code(err), "no second stream while the first holds the only slot")
	assert.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)

	clk.Advance(time.Millisecond)
	next <- struct{}{}
	_, err = ws.Recv()
	require.NoError(t, err)
	next <- struct{}{}
	_, err = ws.Recv()
	assert.ErrorIs(t, err, io.EOF)
	s := snapshot(t, reg, "be")
	assert.Zero(t, s.InFlight, "the slot is freed when the stream ends")
	assert.EqualValues(t, 1, s.Windows, "the stream's life is a sample")

	ctx, cancel := context.WithCancel(context.Background())
	ws, err = cl.Watch(ctx, &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	_, err = ws.Recv()
	require.NoError(t, err)
	assert.Equal(t, 1, snapshot(t, reg, "be").InFlight)
	cancel()
	eventually(t, func() bool { return snapshot(t, reg, "be").InFlight == 0 }, "a cancelled stream frees its slot")
	assert.EqualValues(t, 1, snapshot(t, reg, "be").Windows, "with no sample")
}

func TestClientInterceptorErrors(t *testing.T) {
	reg, _ := newReg(t, 4)
	p, err := r4cgrpc.NewClientPipeline(reg, "be")
	require.NoError(t, err)
	_, err = r4cgrpc.UnaryClientInterceptor(nil, r4cgrpc.ClientConfig{})
	assert.EqualError(t, err, "R4C-REG-005 r4cgrpc.UnaryClientInterceptor=nil: the pipeline must not be nil")
	_, err = r4cgrpc.StreamClientInterceptor(nil, r4cgrpc.ClientConfig{})
	assert.ErrorIs(t, err, r4c.ErrConfig)
	_, err = r4cgrpc.StreamClientInterceptor(p, r4cgrpc.ClientConfig{})
	assert.ErrorIs(t, err, r4cgrpc.ErrStreamRetry)
	assert.ErrorIs(t, err, r4c.ErrConfig)
	assert.Contains(t, err.Error(), "R4C-ATR-010 r4cgrpc.StreamClientInterceptor=be.retry")
}

func TestClientHedgeGivesEachAttemptItsOwnReply(t *testing.T) {
	reg, clk := newReg(t, 4)
	release := make(chan struct{})
	var n atomic.Int32
	h := &health{check: func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		if n.Add(1) == 1 {
			select { // the slow first attempt: it loses
			case <-release:
			case <-ctx.Done():
			}
			return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_NOT_SERVING}, nil
		}
		return serving(), nil
	}}
	p, err := r4cgrpc.NewClientPipeline(reg, "be", func(b *pipeline.Builder[any]) {
		b.Timeout(func(c *timeout.Config) { c.Disabled = true })
		b.Hedge(func(c *hedge.Config) { c.Delay = 100 * time.Millisecond })
	})
	require.NoError(t, err)
	require.True(t, p.Detaches())
	cl := startBuf(t, h, nil, protecting(t, p, r4cgrpc.ClientConfig{})...)
	done := make(chan *healthpb.HealthCheckResponse, 1)
	go func() {
		resp, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
		if err != nil {
			done <- nil
			return
		}
		done <- resp
	}()
	eventually(t, func() bool { return n.Load() == 1 }, "the first attempt reaches the server")
	clk.Advance(100 * time.Millisecond)
	resp := recv(t, done)
	close(release)
	require.NotNil(t, resp)
	assert.Equal(t, healthpb.HealthCheckResponse_SERVING, resp.Status, "the winner's reply, whatever the loser writes")
	assert.EqualValues(t, 2, n.Load())
}

func TestClientDoesNotWaitForAPushbackBeyondItsMax(t *testing.T) {
	reg, clk := newReg(t, 4)
	var n atomic.Int32
	h := &health{check: func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
		n.Add(1)
		_ = grpc.SetTrailer(ctx, metadata.Pairs(r4cgrpc.PushbackKey, "120000"))
		return nil, status.Error(codes.Unavailable, "later")
	}}
	cl := startBuf(t, h, nil, protecting(t, manualPipeline(t, reg, "be"), r4cgrpc.ClientConfig{MaxPushback: time.Minute})...)
	_, err := cl.Check(context.Background(), &healthpb.HealthCheckRequest{})
	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.EqualValues(t, 1, n.Load(), "two minutes is more than the caller waits")
	assert.Zero(t, clk.Pending())

	_, err = r4cgrpc.UnaryClientInterceptor(manualPipeline(t, reg, "other"), r4cgrpc.ClientConfig{MaxPushback: -time.Second})
	assert.EqualError(t, err, "R4C-ATR-004 r4cgrpc.ClientConfig.MaxPushback=-1s: must not be negative")
}
