// Command replicas shows one rate limit shared by several replicas of a
// service through Redis, and what happens when Redis goes away:
//
//	go run ./r4credis/examples/replicas
//
// It starts a redis-server of its own on a free loopback port (or uses the
// one given with -addr), then several "replicas": each has its own Redis
// client, its own r4c registry and its own pipeline, as separate processes
// would, and all of them name the same rate limit, "partner-api", whose
// state lives in Redis. Each replica calls as fast as it can; the limit
// lets through -rate calls per second in all, whatever the number of
// replicas.
//
// A third of the way in, the program freezes its redis-server (SIGSTOP)
// for a third of the run: each replica falls back, within the store
// timeout, to a local limiter at its share of the rate (1/replicas), and
// finds Redis again when it is resumed. It prints a line per second: the
// calls each replica was allowed, their sum against the limit, and
// whether the replicas were on Redis or falling back.
//
// Flags:
//
//	-addr      a Redis to use (host:port) instead of starting one; the
//	           freeze is then skipped
//	-replicas  how many replicas share the limit (3)
//	-rate      the limit: calls per second for all replicas together (100)
//	-duration  the length of the run (9s)
//
// Everything stays on the loopback interface, every loop is bounded in
// time, and the program stops its redis-server (by its pid) and closes its
// clients before it exits.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/r4credis"
)

func main() {
	addr := flag.String("addr", "", "a Redis to use (host:port) instead of starting one")
	replicas := flag.Int("replicas", 3, "how many replicas share the limit")
	rate := flag.Int("rate", 100, "calls per second for all replicas together")
	duration := flag.Duration("duration", 9*time.Second, "the length of the run")
	flag.Parse()
	if err := run(*addr, *replicas, *rate, *duration); err != nil {
		fmt.Fprintln(os.Stderr, "replicas:", err)
		os.Exit(1)
	}
}

// replica is one copy of the service: its own client, registry and
// pipeline.
type replica struct {
	client  *redis.Client
	reg     *r4c.Registry
	p       *pipeline.Pipeline[string]
	allowed atomic.Int64
}

func newReplica(addr string, replicas, rate int, id int) (*replica, error) {
	client := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, PoolSize: 4})
	store, err := r4credis.New(client, r4credis.Options{})
	if err != nil {
		client.Close()
		return nil, err
	}
	reg, err := r4c.NewRegistry(r4c.WithRateLimitConfig("partner-api", func(c *ratelimit.Config) {
		c.Store = store
		c.Limit = rate
		c.Period = time.Second
		c.Burst = rate / 10
		c.StoreTimeout = 50 * time.Millisecond
		c.FallbackShare = 1 / float64(replicas) // the replicas' fallbacks sum to the limit
		c.ProbeInterval = 500 * time.Millisecond
	}))
	if err != nil {
		client.Close()
		return nil, err
	}
	stop := reg.Events().Subscribe(func(e events.Event) {
		if e, ok := e.(events.StoreStateChanged); ok {
			if e.Fallback {
				fmt.Printf("  replica %d: Redis failed (%v): falling back to %s\n", id, e.Err, e.Mode)
			} else {
				fmt.Printf("  replica %d: back on Redis\n", id)
			}
		}
	})
	_ = stop // the registry lives as long as the program
	p, err := pipeline.NewBuilder[string](reg, "partner-api").
		RateLimit(func(c *ratelimit.Config) { c.BaseConfig = "partner-api" }).
		Build()
	if err != nil {
		client.Close()
		return nil, err
	}
	return &replica{client: client, reg: reg, p: p}, nil
}

// call is what each replica does as fast as it can: a call through the
// pipeline, which the rate limit allows or refuses.
func (r *replica) call() {
	if _, err := r.p.Execute(func() (string, error) { return "ok", nil }); err == nil {
		r.allowed.Add(1)
	}
}

func (r *replica) fallingBack() bool {
	h, err := r.reg.RateLimit("partner-api")
	return err == nil && h.Snapshot().Fallback
}

func run(addr string, replicas, rate int, duration time.Duration) error {
	if replicas < 1 || rate < 10 || duration < 3*time.Second {
		return fmt.Errorf("need -replicas >= 1, -rate >= 10 and -duration >= 3s")
	}
	var srv *exec.Cmd
	if addr == "" {
		var err error
		if srv, addr, err = startRedis(); err != nil {
			return err
		}
		defer func() {
			_ = srv.Process.Signal(syscall.SIGCONT)
			_ = srv.Process.Kill()
			_ = srv.Wait()
		}()
		fmt.Println("redis-server started on", addr)
	}
	// A key of its own per run, so that a Redis used before starts afresh.
	var rs []*replica
	for i := range replicas {
		r, err := newReplica(addr, replicas, rate, i+1)
		if err != nil {
			return err
		}
		defer r.client.Close()
		rs = append(rs, r)
	}
	if err := rs[0].client.Del(context.Background(), "r4c:rl:{partner-api}").Err(); err != nil {
		return fmt.Errorf("redis at %s: %w", addr, err)
	}
	fmt.Printf("%d replicas share a limit of %d calls/s (burst %d) in Redis\n\n", replicas, rate, rate/10)

	start := time.Now()
	end := start.Add(duration)
	var wg sync.WaitGroup
	for _, r := range rs {
		for range 2 {
			wg.Go(func() {
				for time.Now().Before(end) {
					r.call()
					time.Sleep(200 * time.Microsecond)
				}
			})
		}
	}
	freeze, thaw := start.Add(duration/3), start.Add(2*duration/3)
	frozen := false
	last := make([]int64, len(rs))
	total := int64(0)
	for sec := 1; time.Now().Before(end); sec++ {
		time.Sleep(time.Until(start.Add(time.Duration(sec) * time.Second)))
		if srv != nil && !frozen && !time.Now().Before(freeze) && time.Now().Before(thaw) {
			fmt.Println("  -- freezing redis-server (SIGSTOP)")
			_ = srv.Process.Signal(syscall.SIGSTOP)
			frozen = true
		}
		if srv != nil && frozen && !time.Now().Before(thaw) {
			fmt.Println("  -- resuming redis-server (SIGCONT)")
			_ = srv.Process.Signal(syscall.SIGCONT)
			frozen = false
		}
		var parts []string
		sum := int64(0)
		mode := "on Redis"
		for i, r := range rs {
			n := r.allowed.Load()
			parts = append(parts, strconv.FormatInt(n-last[i], 10))
			sum += n - last[i]
			last[i] = n
			if r.fallingBack() {
				mode = "falling back"
			}
		}
		total += sum
		fmt.Printf("second %2d: allowed per replica %-16s sum %4d (limit %d)  %s\n", sec, strings.Join(parts, " "), sum, rate, mode)
	}
	wg.Wait()
	fmt.Printf("\nin all: %d calls allowed in %v; the limit allows %d (burst + rate × time)\n",
		total, duration, rate/10+int(float64(rate)*duration.Seconds()))
	return nil
}

// startRedis starts redis-server on a free loopback port, without
// persistence, and waits until it answers.
func startRedis() (*exec.Cmd, string, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, "", fmt.Errorf("redis-server is not installed (Debian: apt-get install -y redis-server), or give -addr")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir, err := os.MkdirTemp("", "r4credis-example-")
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	for range 100 {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return cmd, addr, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return nil, "", fmt.Errorf("redis-server on %s did not answer within 5s", addr)
}
