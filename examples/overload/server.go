package main

import (
	"container/list"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"
)

// server is the overloaded dependency: an HTTP server on 127.0.0.1 with a
// limited number of workers. A request waits in a first-come-first-served
// queue until a worker is free, then takes the mean service time times a
// random factor (log-normal, mean 1: most requests take about the mean, a
// few take two or three times as long). A request whose client gives up
// while it waits leaves the queue; one that is already being served is
// finished anyway, as most servers do: that work is wasted.
type server struct {
	url     string
	http    *http.Server
	served  chan error // Serve's result
	service time.Duration

	mu      sync.Mutex
	workers int        // how many requests may be served at once
	busy    int        // how many are being served
	queue   *list.List // of chan struct{}: the waiting requests, oldest first
	rng     *rand.Rand // service-time noise
}

// startServer listens on a free port of 127.0.0.1 and serves until close.
func startServer(workers int, service time.Duration, seed uint64) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{
		url:     "http://" + ln.Addr().String() + "/",
		served:  make(chan error, 1),
		service: service,
		workers: workers,
		queue:   list.New(),
		rng:     rand.New(rand.NewPCG(seed, 0x5e41ce)),
	}
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	go func() { s.served <- s.http.Serve(ln) }()
	return s, nil
}

// ServeHTTP waits for a worker, works, and answers "ok".
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	work, err := s.acquire(r.Context())
	if err != nil {
		return // the client has gone: nobody to answer
	}
	time.Sleep(work) // a worker does not notice that its client has gone
	s.release()
	io.WriteString(w, "ok\n")
}

// acquire waits in the queue for a worker, or until ctx is done, and
// returns how long the request will take to serve.
func (s *server) acquire(ctx context.Context) (time.Duration, error) {
	s.mu.Lock()
	work := s.serviceTimeLocked()
	if s.busy < s.workers && s.queue.Len() == 0 {
		s.busy++
		s.mu.Unlock()
		return work, nil
	}
	turn := make(chan struct{})
	waiting := s.queue.PushBack(turn)
	s.mu.Unlock()

	select {
	case <-turn:
		return work, nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case <-turn: // it was our turn just now: pass the worker on
			s.busy--
			s.dispatchLocked()
		default:
			s.queue.Remove(waiting)
		}
		return 0, ctx.Err()
	}
}

// release frees a worker for the next request in the queue.
func (s *server) release() {
	s.mu.Lock()
	s.busy--
	s.dispatchLocked()
	s.mu.Unlock()
}

// setWorkers changes the capacity. Requests already being served finish;
// when workers are added, queued requests start at once.
func (s *server) setWorkers(n int) {
	s.mu.Lock()
	s.workers = n
	s.dispatchLocked()
	s.mu.Unlock()
}

// dispatchLocked hands free workers to the oldest waiting requests. s.mu is
// held.
func (s *server) dispatchLocked() {
	for s.busy < s.workers && s.queue.Len() > 0 {
		turn := s.queue.Remove(s.queue.Front()).(chan struct{})
		s.busy++
		close(turn)
	}
}

// serviceTimeLocked draws a service time: the mean times a log-normal
// factor of mean 1 (σ = 0.5, so the 99th percentile is 2.8 times the mean).
// s.mu is held.
func (s *server) serviceTimeLocked() time.Duration {
	const sigma = 0.5
	factor := math.Exp(sigma*s.rng.NormFloat64() - sigma*sigma/2)
	return time.Duration(float64(s.service) * factor)
}

// close stops the server: it stops listening, waits for the requests being
// served (a worker finishes what it started; a few seconds at most, else it
// cuts their connections) and closes every connection.
func (s *server) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, s.http.Close())
	}
	if serr := <-s.served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
