//go:build !race

package r4cgrpc_test

import (
	"context"
	"testing"

	"google.golang.org/grpc"

	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/r4cgrpc"
)

// TestInterceptorAllocations pins what an admitted unary call allocates:
// on the server, the call's record; on the client, the call's record, the
// options with the trailer's and the trailer's pointer.
func TestInterceptorAllocations(t *testing.T) {
	reg, _ := newReg(t, 4)
	p, err := pipeline.NewBuilder[any](reg, "api").AdaptiveLimit(nil).Build()
	if err != nil {
		t.Fatal(err)
	}
	si, err := r4cgrpc.UnaryServerInterceptor(p, r4cgrpc.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	info := &grpc.UnaryServerInfo{FullMethod: "/s/m"}
	handler := func(ctx context.Context, req any) (any, error) { return req, nil }
	ctx := context.Background()
	if n := testing.AllocsPerRun(200, func() { _, _ = si(ctx, 1, info, handler) }); n != 1 {
		t.Errorf("server: %v allocs per call, want 1", n)
	}
	ci, err := r4cgrpc.UnaryClientInterceptor(p, r4cgrpc.ClientConfig{})
	if err != nil {
		t.Fatal(err)
	}
	invoker := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return nil }
	if n := testing.AllocsPerRun(200, func() { _ = ci(ctx, "/s/m", 1, nil, nil, invoker) }); n != 3 {
		t.Errorf("client: %v allocs per call, want 3", n)
	}
}
