package r4credis_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// server is a redis-server of the tests' own, on a loopback port, with its
// data in a temporary directory and no persistence. It is stopped by its
// pid.
type server struct {
	port int
	dir  string
	cmd  *exec.Cmd
}

// shared is the server most tests use; nil when redis-server is missing.
var shared *server

// missing says why there is no server, when there is none.
var missing string

// quiet drops go-redis's own log lines (dial failures while a test has
// stopped its server on purpose); the tests check what matters.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func TestMain(m *testing.M) {
	redis.SetLogger(quiet{})
	code := func() int {
		if os.Getenv(childEnv) != "" {
			return m.Run() // a replica process: it reaches the server of its parent
		}
		if _, err := exec.LookPath("redis-server"); err != nil {
			missing = "redis-server is not installed (Debian: apt-get install -y redis-server; .ci/run installs it)"
		} else {
			s, err := startServer(0)
			if err != nil {
				fmt.Fprintln(os.Stderr, "r4credis: cannot start redis-server:", err)
				return 1
			}
			defer s.stop()
			shared = s
		}
		return m.Run()
	}()
	if code == 0 && os.Getenv(childEnv) == "" {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// needServer returns the shared server, or skips the test when there is
// none, or fails it when CI is set: CI must run these tests.
func needServer(t testing.TB) *server {
	t.Helper()
	if shared == nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("r4credis: " + missing)
		}
		t.Skip("r4credis: " + missing)
	}
	return shared
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startServer starts redis-server on port (a free one when 0) and waits,
// for at most 10s, until it answers PING.
func startServer(port int) (*server, error) {
	if port == 0 {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		port = p
	}
	dir, err := os.MkdirTemp("", "r4credis-")
	if err != nil {
		return nil, err
	}
	s := &server{port: port, dir: dir}
	if err := s.start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func (s *server) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

func (s *server) start(extra ...string) error {
	args := append([]string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir, "--daemonize", "no", "--loglevel", "warning"}, extra...)
	s.cmd = exec.Command("redis-server", args...)
	if err := s.cmd.Start(); err != nil {
		return err
	}
	c := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1})
	defer c.Close()
	for range 200 {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.kill()
	return errors.New("redis-server on " + s.addr() + " did not answer within 10s")
}

// kill stops the server by its pid and waits for it to exit.
func (s *server) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // if it was paused
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// pause and resume freeze the server (SIGSTOP, SIGCONT): it keeps its
// connections but answers nothing, as a Redis stuck or out of reach.
func (s *server) pause()  { _ = s.cmd.Process.Signal(syscall.SIGSTOP) }
func (s *server) resume() { _ = s.cmd.Process.Signal(syscall.SIGCONT) }

func (s *server) stop() {
	s.kill()
	os.RemoveAll(s.dir)
}

// client returns a client of the server as r4credis wants it
// (ContextTimeoutEnabled), closed when the test ends.
func (s *server) client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// startClusterNode starts a redis-server in cluster mode that owns every
// slot: a cluster of one node, enough for a ClusterClient.
func startClusterNode() (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "r4credis-cluster-")
	if err != nil {
		return nil, err
	}
	s := &server{port: port, dir: dir}
	if err := s.start("--cluster-enabled", "yes", "--cluster-config-file", dir+"/nodes.conf"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c := redis.NewClient(&redis.Options{Addr: s.addr()})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", 0, 16383).Err(); err != nil {
		s.stop()
		return nil, err
	}
	for ctx.Err() == nil {
		info, err := c.ClusterInfo(ctx).Result()
		if err == nil && strings.Contains(info, "cluster_state:ok") {
			return s, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.stop()
	return nil, errors.New("the cluster node on " + s.addr() + " did not come up within 10s")
}

// startSentinel starts a redis-server in sentinel mode watching master
// under the name "r4c": enough for a failover (Sentinel) client.
func startSentinel(master *server) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "r4credis-sentinel-")
	if err != nil {
		return nil, err
	}
	conf := dir + "/sentinel.conf"
	text := "port " + strconv.Itoa(port) + "\nbind 127.0.0.1\ndir " + dir + "\n" +
		"sentinel monitor r4c 127.0.0.1 " + strconv.Itoa(master.port) + " 1\n"
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &server{port: port, dir: dir}
	s.cmd = exec.Command("redis-server", conf, "--sentinel", "--loglevel", "warning")
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c := redis.NewSentinelClient(&redis.Options{Addr: s.addr()})
	defer c.Close()
	for range 200 {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		addr, err := c.GetMasterAddrByName(ctx, "r4c").Result()
		cancel()
		if err == nil && len(addr) == 2 && addr[1] == strconv.Itoa(master.port) {
			return s, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	return nil, errors.New("the sentinel on " + s.addr() + " did not know its master within 10s")
}
