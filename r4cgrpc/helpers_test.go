package r4cgrpc_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/test/bufconn"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// newReg returns a registry on a ManualClock whose adaptive limits start
// at limit and end a window at the first sample 1ms after the last.
func newReg(t *testing.T, limit int, opts ...r4c.Option) (*r4c.Registry, *clocktest.ManualClock) {
	t.Helper()
	clk := clocktest.NewManualClock()
	opts = append([]r4c.Option{
		r4c.WithClock(clk),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) {
			c.InitialLimit, c.MinLimit, c.MaxLimit = limit, 1, limit
			c.MinWindowSamples = 1
			c.Window = time.Millisecond
		}),
	}, opts...)
	reg, err := r4c.NewRegistry(opts...)
	require.NoError(t, err)
	return reg, clk
}

func snapshot(t *testing.T, reg *r4c.Registry, name string) adaptivelimit.Snapshot {
	t.Helper()
	h, err := reg.AdaptiveLimit(name)
	require.NoError(t, err)
	return h.Snapshot()
}

// health is a Health service whose answers the test sets.
type health struct {
	healthpb.UnimplementedHealthServer
	check func(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error)
	watch func(req *healthpb.HealthCheckRequest, s healthpb.Health_WatchServer) error
}

func (h *health) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	return h.check(ctx, req)
}

func (h *health) Watch(req *healthpb.HealthCheckRequest, s healthpb.Health_WatchServer) error {
	return h.watch(req, s)
}

func serving() *healthpb.HealthCheckResponse {
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}
}

// start serves h over TCP on loopback with the server options given and
// returns a client for it, dialled with the dial options given.
func start(t *testing.T, h *health, sopts []grpc.ServerOption, dopts ...grpc.DialOption) healthpb.HealthClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return serveOn(t, lis, h, sopts, append(dopts, grpc.WithTransportCredentials(insecure.NewCredentials())), "passthrough:///"+lis.Addr().String())
}

// startBuf is start over an in-memory bufconn.
func startBuf(t *testing.T, h *health, sopts []grpc.ServerOption, dopts ...grpc.DialOption) healthpb.HealthClient {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	dopts = append(dopts, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	return serveOn(t, lis, h, sopts, dopts, "passthrough:///bufnet")
}

func serveOn(t *testing.T, lis net.Listener, h *health, sopts []grpc.ServerOption, dopts []grpc.DialOption, target string) healthpb.HealthClient {
	t.Helper()
	srv := grpc.NewServer(sopts...)
	healthpb.RegisterHealthServer(srv, h)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(lis)
	}()
	conn, err := grpc.NewClient(target, dopts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = conn.Close()
		srv.Stop()
		<-done
	})
	return healthpb.NewHealthClient(conn)
}

func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("timed out: " + msg)
		case <-time.After(time.Millisecond):
		}
	}
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("timed out waiting")
		panic("unreachable")
	}
}
