package r4cgrpc_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/resilience4cata/r4c/r4cgrpc"
)

// exampleHealth answers Check after the test lets it.
type exampleHealth struct {
	healthpb.UnimplementedHealthServer
	entered, release chan struct{}
	busy             atomic.Int32
}

func (h *exampleHealth) Check(ctx context.Context, _ *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	if h.busy.Add(-1) >= 0 {
		return nil, status.Error(codes.Unavailable, "warming up")
	}
	if h.entered != nil {
		h.entered <- struct{}{}
		<-h.release
	}
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

// dial serves h on an in-memory listener with the server options given
// and returns a connection dialled with the dial options given, and a
// function that stops both.
func dial(h healthpb.HealthServer, sopts []grpc.ServerOption, dopts ...grpc.DialOption) (*grpc.ClientConn, func()) {
	lis := bufconn.Listen(1 << 16)
	srv := grpc.NewServer(sopts...)
	healthpb.RegisterHealthServer(srv, h)
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(lis) }()
	dopts = append(dopts, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	conn, err := grpc.NewClient("passthrough:///bufnet", dopts...)
	if err != nil {
		log.Fatal(err)
	}
	return conn, func() { conn.Close(); srv.Stop(); <-done }
}

// A server sheds a call it has no slot for: ResourceExhausted at once,
// with the pushback trailer.
func ExampleUnaryServerInterceptor() {
	reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.InitialLimit, c.MaxLimit = 1, 1 }))
	if err != nil {
		log.Fatal(err)
	}
	p, err := r4cgrpc.NewServerPipeline(reg, "health")
	if err != nil {
		log.Fatal(err)
	}
	unary, err := r4cgrpc.UnaryServerInterceptor(p, r4cgrpc.ServerConfig{})
	if err != nil {
		log.Fatal(err)
	}
	h := &exampleHealth{entered: make(chan struct{}), release: make(chan struct{})}
	conn, stop := dial(h, []grpc.ServerOption{grpc.ChainUnaryInterceptor(unary)})
	defer stop()
	client := healthpb.NewHealthClient(conn)

	first := make(chan error)
	go func() {
		_, err := client.Check(context.Background(), &healthpb.HealthCheckRequest{})
		first <- err
	}()
	<-h.entered // the only slot is taken

	var trailer metadata.MD
	_, err = client.Check(context.Background(), &healthpb.HealthCheckRequest{}, grpc.Trailer(&trailer))
	fmt.Println(status.Code(err), trailer.Get(r4cgrpc.PushbackKey))
	close(h.release)
	fmt.Println(<-first)
	// Output:
	// ResourceExhausted [1000]
	// <nil>
}

// A client retries a call the server did not process (Unavailable), and
// the caller sees the answer that succeeded.
func ExampleUnaryClientInterceptor() {
	reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	if err != nil {
		log.Fatal(err)
	}
	p, err := r4cgrpc.NewClientPipeline(reg, "health", func(b *pipeline.Builder[any]) {
		b.Retry(func(c *retry.Config) { c.SetZero("wait") })
		// gRPC sends a deadline as real time: a ManualClock's is not one.
		b.Timeout(func(c *timeout.Config) { c.Disabled = true })
	})
	if err != nil {
		log.Fatal(err)
	}
	ci, err := r4cgrpc.UnaryClientInterceptor(p, r4cgrpc.ClientConfig{})
	if err != nil {
		log.Fatal(err)
	}
	h := &exampleHealth{}
	h.busy.Store(2) // the first two calls fail with Unavailable
	conn, stop := dial(h, nil, grpc.WithChainUnaryInterceptor(ci))
	defer stop()

	resp, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	fmt.Println(resp.GetStatus(), err)
	r, _ := reg.Retry("health")
	fmt.Println("retries:", r.Snapshot().Retries)
	// Output:
	// SERVING <nil>
	// retries: 2
}
