package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// psServer is a model of a CPU-bound database for the tests, to run in a
// testing/synctest bubble: cores processors shared by every running query
// in turns of quantum (round robin, which is processor sharing to within a
// quantum), each query needing work of CPU time. It goes on working on a
// query whose client gave up (as a server that does not hear of it would):
// the work ends on its own goroutine, and the client gets ctx.Err() at
// once.
type psServer struct {
	cores      chan struct{}
	work       time.Duration
	quantum    time.Duration
	running    sync.WaitGroup
	inWork     atomic.Int64 // queries being worked on
	freshCalls int          // how many times fresh was called
}

func newPSServer(cores int, work time.Duration) *psServer {
	return &psServer{cores: make(chan struct{}, cores), work: work, quantum: time.Millisecond}
}

func (s *psServer) calibrate(ctx context.Context, target time.Duration) (string, time.Duration, error) {
	return fmt.Sprintf("a model query of %v of CPU", s.work), s.work, ctx.Err()
}

func (s *psServer) query(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan struct{})
	s.inWork.Add(1)
	s.running.Go(func() {
		defer s.inWork.Add(-1)
		defer close(done)
		for left := s.work; left > 0; left -= s.quantum {
			s.cores <- struct{}{} // a turn on a core; channel senders queue in order
			time.Sleep(min(s.quantum, left))
			<-s.cores
		}
	})
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *psServer) busy(context.Context) (running, conns int, err error) {
	n := int(s.inWork.Load())
	return n, n, nil
}

func (s *psServer) fresh(ctx context.Context) error {
	s.freshCalls++
	s.running.Wait()
	return ctx.Err()
}
