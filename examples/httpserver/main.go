// Command httpserver shows r4chttp shedding load on a real HTTP server:
//
//	go run ./examples/httpserver
//
// It starts a server on 127.0.0.1 whose capacity is limited (a few
// workers, a first-come-first-served wait for a free one, a service time
// with some noise) and sends it an open-loop load above that capacity:
// requests arrive at random at a fixed average rate, whether or not the
// earlier ones were answered, and each gives up after a deadline. It does
// it twice, for the same time and with the same arrivals:
//
//  1. with the handler wrapped by r4chttp.NewHandler around the
//     recommended server pipeline (an adaptive limit running Little, and a
//     cooperative timeout): the limit finds how many requests the workers
//     can take at once and answers the rest 503 at once, so the requests
//     it admits are served in time;
//  2. with the bare handler: every request waits for a worker, the wait
//     grows until requests miss their deadline, and most of the work the
//     server does is for clients that have given up.
//
// For each run it prints the goodput (requests answered 200 within the
// deadline, per second), how many were shed at once (503) and how many
// came too late, and the p50 and p99 latency of the good answers.
//
// Flags: -duration of each run (5s), -load as a multiple of the capacity
// (2), -workers (4), -service time (10ms), -deadline of each request
// (500ms). Everything stays on loopback, every loop is bounded, and the
// program closes everything it opened before it exits.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/resilience4cata/r4c/r4chttp"
)

// options are the command's flags.
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
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "length of each run")
	flag.Float64Var(&o.load, "load", 2, "offered load, as a multiple of the server's capacity")
	flag.IntVar(&o.workers, "workers", 4, "the server's workers")
	flag.DurationVar(&o.service, "service", 10*time.Millisecond, "the mean service time of a request")
	flag.DurationVar(&o.deadline, "deadline", 500*time.Millisecond, "how long a client waits for an answer")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the arrivals and the service times")
	flag.Parse()
	if err := run(os.Stdout, o); err != nil {
		log.Fatal(err)
	}
}

// run runs the load twice, with and without r4c, and prints both.
func run(w io.Writer, o options) error {
	if o.workers < 1 || o.service <= 0 || o.duration <= 0 || o.load <= 0 || o.deadline <= 0 {
		return fmt.Errorf("httpserver: -workers, -service, -duration, -load and -deadline must be positive")
	}
	capacity := float64(o.workers) / o.service.Seconds()
	fmt.Fprintf(w, "server: %d workers, %v per request: %.0f requests/s; load %.0f requests/s (%.1fx) for %v, deadline %v\n\n",
		o.workers, o.service, capacity, capacity*o.load, o.load, o.duration, o.deadline)
	fmt.Fprintf(w, "%-10s %10s %10s %10s %10s %10s\n", "", "goodput/s", "shed/s", "late/s", "p50", "p99")
	for _, withR4C := range []bool{true, false} {
		res, err := once(o, capacity*o.load, withR4C)
		if err != nil {
			return err
		}
		name := "r4c"
		if !withR4C {
			name = "bare"
		}
		secs := o.duration.Seconds()
		fmt.Fprintf(w, "%-10s %10.0f %10.0f %10.0f %10v %10v\n", name,
			float64(res.good)/secs, float64(res.shed)/secs, float64(res.late)/secs,
			res.percentile(0.50).Round(time.Millisecond/10), res.percentile(0.99).Round(time.Millisecond/10))
	}
	return nil
}

// workers is the server's capacity: a fixed number of workers, each busy
// for a service time per request.
type workers struct {
	free    chan struct{}
	service time.Duration
	mu      sync.Mutex
	rng     *rand.Rand
}

func (s *workers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.free:
	case <-r.Context().Done():
		return // the client gave up (or the pipeline's timeout fired)
	}
	defer func() { s.free <- struct{}{} }()
	s.mu.Lock()
	d := time.Duration(float64(s.service) * (0.5 + s.rng.Float64())) // mean: the service time
	s.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		_, _ = io.WriteString(w, "done")
	case <-r.Context().Done():
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

// result counts a run's outcomes.
type result struct {
	mu        sync.Mutex
	good      int
	shed      int
	late      int
	latencies []time.Duration
}

func (r *result) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	slices.Sort(r.latencies)
	return r.latencies[int(p*float64(len(r.latencies)-1))]
}

// once serves and loads one run.
func once(o options, rate float64, withR4C bool) (*result, error) {
	s := &workers{free: make(chan struct{}, o.workers), service: o.service, rng: rand.New(rand.NewPCG(o.seed, 2))}
	for range o.workers {
		s.free <- struct{}{}
	}
	var h http.Handler = s
	if withR4C {
		reg, err := r4c.NewRegistry(r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) {
			c.InitialLimit = o.workers
			c.Window = 100 * time.Millisecond
		}))
		if err != nil {
			return nil, err
		}
		p, err := r4chttp.NewServerPipeline(reg, "work", func(b *pipeline.Builder[int]) {
			b.Timeout(func(c *timeout.Config) { c.Timeout = o.deadline })
		})
		if err != nil {
			return nil, err
		}
		if h, err = r4chttp.NewHandler(p, s, r4chttp.ServerConfig{}); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-served
	}()

	tr := &http.Transport{MaxIdleConnsPerHost: 4096}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	url := "http://" + ln.Addr().String() + "/"
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
			res.record(send(client, url, o.deadline))
		}()
	}
	wg.Wait()
	return res, nil
}

// outcome is one request's end.
type outcome struct {
	status  int // 0: no answer in time
	latency time.Duration
}

func send(c *http.Client, url string, deadline time.Duration) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return outcome{}
	}
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return outcome{}
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return outcome{}
	}
	return outcome{status: resp.StatusCode, latency: time.Since(t0)}
}

func (r *result) record(o outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch o.status {
	case http.StatusOK:
		r.good++
		r.latencies = append(r.latencies, o.latency)
	case http.StatusServiceUnavailable:
		r.shed++
	default:
		r.late++
	}
}
