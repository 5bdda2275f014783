// Command grpc shows r4cgrpc on both sides of a real gRPC connection:
//
//	go run ./examples/grpc
//
// It starts a gRPC server on 127.0.0.1 (the standard Health service, whose
// Check does a fixed amount of work on one of a few workers) and sends it
// an open-loop load above its capacity from a client: calls arrive at
// random at a fixed average rate, each with a deadline. It does it twice,
// with the same arrivals:
//
//  1. with r4cgrpc: the server's unary interceptor sheds what its workers
//     cannot take (ResourceExhausted with a grpc-retry-pushback-ms
//     trailer, at once), and the client's interceptor runs each call
//     through the recommended client pipeline (its deadline reaches the
//     server; a shed call is not retried before the pushback);
//  2. bare: every call waits for a worker until its deadline passes.
//
// For each run it prints the goodput (calls answered OK within the
// deadline, per second), the calls shed and the calls that missed their
// deadline, and the p50 and p99 latency of the good answers. Then it opens
// a Watch stream through the stream interceptors and shows that it holds
// one slot of the server's limit for its life.
//
// Flags: -duration of each run (4s), -load as a multiple of the capacity
// (2), -workers (4), -service time (10ms), -deadline (500ms).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/resilience4cata/r4c/r4cgrpc"
)

type options struct {
	duration time.Duration
	load     float64
	workers  int
	service  time.Duration
	deadline time.Duration
	seed     uint64
}

func main() {
	var o options
	flag.DurationVar(&o.duration, "duration", 4*time.Second, "length of each run")
	flag.Float64Var(&o.load, "load", 2, "offered load, as a multiple of the server's capacity")
	flag.IntVar(&o.workers, "workers", 4, "the server's workers")
	flag.DurationVar(&o.service, "service", 10*time.Millisecond, "the mean service time of a call")
	flag.DurationVar(&o.deadline, "deadline", 500*time.Millisecond, "each call's deadline")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the arrivals and the service times")
	flag.Parse()
	if err := run(os.Stdout, o); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, o options) error {
	if o.workers < 1 || o.service <= 0 || o.duration <= 0 || o.load <= 0 || o.deadline <= 0 {
		return errors.New("grpc: -workers, -service, -duration, -load and -deadline must be positive")
	}
	capacity := float64(o.workers) / o.service.Seconds()
	fmt.Fprintf(w, "server: %d workers, %v per call: %.0f calls/s; load %.0f calls/s (%.1fx) for %v, deadline %v\n\n",
		o.workers, o.service, capacity, capacity*o.load, o.load, o.duration, o.deadline)
	fmt.Fprintf(w, "%-6s %10s %10s %10s %10s %10s\n", "", "goodput/s", "shed/s", "late/s", "p50", "p99")
	for _, withR4C := range []bool{true, false} {
		res, err := once(o, capacity*o.load, withR4C)
		if err != nil {
			return err
		}
		name := map[bool]string{true: "r4c", false: "bare"}[withR4C]
		secs := o.duration.Seconds()
		fmt.Fprintf(w, "%-6s %10.0f %10.0f %10.0f %10v %10v\n", name, float64(res.good)/secs, float64(res.shed)/secs,
			float64(res.late)/secs, res.percentile(0.50).Round(time.Millisecond/10), res.percentile(0.99).Round(time.Millisecond/10))
		fmt.Fprint(w, res.note.String())
	}
	return nil
}

// health is the Health service over a few workers.
type health struct {
	healthpb.UnimplementedHealthServer
	free    chan struct{}
	service time.Duration
	mu      sync.Mutex
	rng     *rand.Rand
}

func (h *health) Check(ctx context.Context, _ *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	select {
	case <-h.free:
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	defer func() { h.free <- struct{}{} }()
	h.mu.Lock()
	d := time.Duration(float64(h.service) * (0.5 + h.rng.Float64()))
	h.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

// Watch sends SERVING once and holds the stream until the client leaves.
func (h *health) Watch(_ *healthpb.HealthCheckRequest, s healthpb.Health_WatchServer) error {
	if err := s.Send(&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}); err != nil {
		return err
	}
	<-s.Context().Done()
	return nil
}

type result struct {
	mu               sync.Mutex
	good, shed, late int
	latencies        []time.Duration
	note             strings.Builder // printed after the run's line
}

func (r *result) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	slices.Sort(r.latencies)
	return r.latencies[int(p*float64(len(r.latencies)-1))]
}

func once(o options, rate float64, withR4C bool) (*result, error) {
	h := &health{free: make(chan struct{}, o.workers), service: o.service, rng: rand.New(rand.NewPCG(o.seed, 2))}
	for range o.workers {
		h.free <- struct{}{}
	}
	var sopts []grpc.ServerOption
	dopts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	var reg *r4c.Registry
	if withR4C {
		var err error
		reg, err = r4c.NewRegistry(r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) {
			c.InitialLimit = o.workers
			c.Window = 100 * time.Millisecond
		}))
		if err != nil {
			return nil, err
		}
		if sopts, err = serverOptions(reg); err != nil {
			return nil, err
		}
		cp, err := r4cgrpc.NewClientPipeline(reg, "client", func(b *pipeline.Builder[any]) {
			b.Retry(func(c *retry.Config) {
				c.MaxAttempts = 2
				c.SetZero("wait") // wait what the server's pushback asks for, no more
			})
			b.Timeout(func(c *timeout.Config) { c.Timeout = o.deadline })
			// The subject here is the server's shedding. At twice its
			// capacity the server sheds half the calls: the client's limit
			// would count them as drops and shrink, and its breaker would
			// count them as failures and open; both protect the server
			// further, by failing calls in the client instead.
			b.AdaptiveLimit(func(c *adaptivelimit.Config) { c.Disabled = true })
			b.Breaker(func(c *breaker.Config) { c.Disabled = true })
		})
		if err != nil {
			return nil, err
		}
		ui, err := r4cgrpc.UnaryClientInterceptor(cp, r4cgrpc.ClientConfig{})
		if err != nil {
			return nil, err
		}
		dopts = append(dopts, grpc.WithChainUnaryInterceptor(ui))
	}
	srv := grpc.NewServer(sopts...)
	healthpb.RegisterHealthServer(srv, h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	defer func() {
		srv.Stop()
		<-served
	}()
	conn, err := grpc.NewClient("passthrough:///"+ln.Addr().String(), dopts...)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	client := healthpb.NewHealthClient(conn)

	res := &result{}
	rng := rand.New(rand.NewPCG(o.seed, 1))
	var wg sync.WaitGroup
	start := time.Now()
	next := start
	for {
		next = next.Add(time.Duration(rng.ExpFloat64() / rate * float64(time.Second)))
		if next.Sub(start) >= o.duration {
			break
		}
		time.Sleep(time.Until(next))
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), o.deadline)
			defer cancel()
			t0 := time.Now()
			_, err := client.Check(ctx, &healthpb.HealthCheckRequest{})
			res.record(status.Code(err), time.Since(t0))
		}()
	}
	wg.Wait()
	if withR4C {
		if err := showStream(&res.note, reg, client); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// serverOptions are the interceptors of a shedding server.
func serverOptions(reg *r4c.Registry) ([]grpc.ServerOption, error) {
	p, err := r4cgrpc.NewServerPipeline(reg, "server")
	if err != nil {
		return nil, err
	}
	u, err := r4cgrpc.UnaryServerInterceptor(p, r4cgrpc.ServerConfig{Pushback: 50 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	s, err := r4cgrpc.StreamServerInterceptor(p, r4cgrpc.ServerConfig{})
	if err != nil {
		return nil, err
	}
	return []grpc.ServerOption{grpc.ChainUnaryInterceptor(u), grpc.ChainStreamInterceptor(s)}, nil
}

// showStream opens a Watch stream and prints the server's calls in flight
// while it is open and after it closed.
func showStream(w io.Writer, reg *r4c.Registry, client healthpb.HealthClient) error {
	lim, err := reg.AdaptiveLimit("server")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := client.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		cancel()
		return err
	}
	if _, err := s.Recv(); err != nil {
		cancel()
		return err
	}
	open := lim.Snapshot().InFlight
	cancel()
	deadline := time.Now().Add(2 * time.Second)
	for lim.Snapshot().InFlight != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	fmt.Fprintf(w, "       (a Watch stream held %d slot of the server's limit while open, %d after it closed)\n",
		open, lim.Snapshot().InFlight)
	return nil
}

func (r *result) record(c codes.Code, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch c {
	case codes.OK:
		r.good++
		r.latencies = append(r.latencies, d)
	case codes.ResourceExhausted, codes.Unavailable:
		r.shed++
	default:
		r.late++
	}
}
