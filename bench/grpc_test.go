package bench_test

import (
	"context"
	"testing"

	fsadaptive "github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/failsafe-go/failsafe-go/failsafegrpc"
	"google.golang.org/grpc"

	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/r4cgrpc"
)

func init() {
	groups = append(groups,
		group{"GRPCUnaryServer", groupGRPCUnaryServer},
		group{"GRPCUnaryClient", groupGRPCUnaryClient},
	)
}

func BenchmarkGRPCUnaryServer(b *testing.B) { benchVariants(b, groupGRPCUnaryServer) }
func BenchmarkGRPCUnaryClient(b *testing.B) { benchVariants(b, groupGRPCUnaryClient) }

var (
	grpcInfo    = &grpc.UnaryServerInfo{FullMethod: "/bench.Service/Call"}
	grpcHandler = func(ctx context.Context, req any) (any, error) { return req, nil }
	grpcInvoker = func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, opts ...grpc.CallOption) error {
		return nil
	}
)

func serverLoop(b *testing.B, ic grpc.UnaryServerInterceptor) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := ic(ctx, 1, grpcInfo, grpcHandler); err != nil {
			b.Fatal(err)
		}
	}
}

func clientLoop(b *testing.B, ic grpc.UnaryClientInterceptor) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := ic(ctx, "/bench.Service/Call", 1, nil, nil, grpcInvoker); err != nil {
			b.Fatal(err)
		}
	}
}

// groupGRPCUnaryServer: a unary server interceptor with an adaptive limit,
// admitted; bare calls the handler.
func groupGRPCUnaryServer(run runFunc) {
	run("bare", func(b *testing.B) {
		serverLoop(b, func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			return h(ctx, req)
		})
	})
	run("r4c", func(b *testing.B) {
		p, err := pipeline.NewBuilder[any](r4cRegistry(b), "s").AdaptiveLimit(adaptiveAdmitted).Build()
		if err != nil {
			b.Fatal(err)
		}
		ic, err := r4cgrpc.UnaryServerInterceptor(p, r4cgrpc.ServerConfig{})
		if err != nil {
			b.Fatal(err)
		}
		serverLoop(b, ic)
	})
	run("failsafe", func(b *testing.B) {
		l := fsadaptive.NewBuilder[any]().WithLimits(minLimit, maxLimit, initialLimit).Build()
		serverLoop(b, failsafegrpc.NewUnaryServerInterceptor[any](l))
	})
}

// groupGRPCUnaryClient: a unary client interceptor with an adaptive limit.
func groupGRPCUnaryClient(run runFunc) {
	run("bare", func(b *testing.B) {
		clientLoop(b, func(ctx context.Context, m string, req, reply any, cc *grpc.ClientConn, inv grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return inv(ctx, m, req, reply, cc, opts...)
		})
	})
	run("r4c", func(b *testing.B) {
		p, err := pipeline.NewBuilder[any](r4cRegistry(b), "c").AdaptiveLimit(adaptiveAdmitted).Build()
		if err != nil {
			b.Fatal(err)
		}
		ic, err := r4cgrpc.UnaryClientInterceptor(p, r4cgrpc.ClientConfig{})
		if err != nil {
			b.Fatal(err)
		}
		clientLoop(b, ic)
	})
	run("failsafe", func(b *testing.B) {
		l := fsadaptive.NewBuilder[any]().WithLimits(minLimit, maxLimit, initialLimit).Build()
		clientLoop(b, failsafegrpc.NewUnaryClientInterceptor[any](l))
	})
}
