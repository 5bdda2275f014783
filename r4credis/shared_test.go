package r4credis_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// childEnv carries a replica's orders (a JSON replicaRun) to a copy of the
// test binary that runs TestReplicaProcess.
const childEnv = "R4CREDIS_REPLICA"

// replicaRun is what one replica process does: take permits from one
// limit on Redis with Goroutines goroutines from Start until End.
type replicaRun struct {
	Addr       string
	Instance   string
	Limit      int
	Burst      int
	Lease      int
	Goroutines int // of which Waiters call Wait, the others Allow
	Waiters    int
	MaxWait    time.Duration
	// CountCalls counts the calls admitted (a leased permit is admitted
	// when spent) instead of the permits the store granted.
	CountCalls bool
	Start, End time.Time
}

// run takes permits as r says and returns how many the store granted
// (see countingStore), or with CountCalls how many calls were admitted.
func (r replicaRun) run(t testing.TB) int64 {
	c := redis.NewClient(&redis.Options{Addr: r.Addr, ContextTimeoutEnabled: true, PoolSize: r.Goroutines + 2})
	defer c.Close()
	st := &countingStore{Store: newStore(t, c)}
	l := newLimiter(t, ratelimit.Config{Limit: r.Limit, Period: time.Second, Burst: r.Burst, Lease: r.Lease,
		MaxWait: r.MaxWait, StoreTimeout: time.Second, Store: st}, policy.Env{Instance: r.Instance})
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for g := range r.Goroutines {
		wg.Go(func() { admitted.Add(hammer(l, policy.System, r.Start, r.End, g < r.Waiters)) })
	}
	wg.Wait()
	if l.Handle().Snapshot().StoreFailures > 0 {
		t.Errorf("the store failed %d times", l.Handle().Snapshot().StoreFailures)
	}
	if admitted.Load() > st.granted.Load() {
		t.Errorf("%d calls admitted, %d permits granted", admitted.Load(), st.granted.Load())
	}
	if r.CountCalls {
		return admitted.Load()
	}
	return st.granted.Load()
}

// TestReplicaProcess is a replica when the test binary runs as one (see
// spawn); otherwise it has nothing to do.
func TestReplicaProcess(t *testing.T) {
	orders := os.Getenv(childEnv)
	if orders == "" {
		t.Skip("run as a replica process by TestSharedLimit")
	}
	var r replicaRun
	require.NoError(t, json.Unmarshal([]byte(orders), &r))
	n := r.run(t)
	os.Stdout.WriteString("\nadmitted " + itoa(n) + "\n")
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// spawn starts a copy of the test binary as a replica.
func spawn(t *testing.T, r replicaRun) (*exec.Cmd, *bytes.Buffer) {
	b, err := json.Marshal(r)
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestReplicaProcess$", "-test.count", "1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+string(b))
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	return cmd, out
}

func admittedOf(t *testing.T, out string) int64 {
	i := strings.LastIndex(out, "admitted ")
	require.GreaterOrEqual(t, i, 0, "replica output:\n%s", out)
	var n int64
	require.NoError(t, json.Unmarshal([]byte(strings.Fields(out[i+len("admitted "):])[0]), &n))
	return n
}

// sharedRun has this process and two replica processes, each with
// several goroutines, share one limit for span, and returns the admitted
// count and the limit's bound burst + rate × span.
func sharedRun(t *testing.T, r replicaRun, span time.Duration) (admitted int64, bound float64) {
	s := needServer(t)
	start := time.Now().Add(3 * time.Second) // the replicas start meanwhile
	r.Addr, r.Instance, r.Start, r.End = s.addr(), uniq(t), start, start.Add(span)
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 2 {
		cmd, out := spawn(t, r)
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	admitted = r.run(t)
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "replica %d:\n%s", i, outs[i])
		n := admittedOf(t, outs[i].String())
		assert.Positive(t, n, "replica %d took part", i)
		admitted += n
	}
	return admitted, float64(r.Burst) + float64(r.Limit)*span.Seconds()
}

// The test: over 10s at a rate R, three processes (this one and
// two copies of the test binary) of 24 goroutines each admit burst + R·t
// within 1%. 22 goroutines of each process wait for their permits
// (MaxWait), reserving them ahead (66 reservations are 660ms ahead at
// 100/s), so that the limit is used to the full even when round trips are
// slow (the race detector on a loaded machine: 10% short with 120ms
// ahead); two call Allow and back off when refused.
func TestSharedLimit(t *testing.T) {
	admitted, bound := sharedRun(t, replicaRun{Limit: 100, Burst: 10, Lease: 1, Goroutines: 24, Waiters: 22,
		MaxWait: 2 * time.Second}, 10*time.Second)
	t.Logf("admitted %d, burst + R·t = %v", admitted, bound)
	checkAdmitted(t, admitted, bound)
}

// checkAdmitted checks a count of permits granted against the limit's
// bound, burst + R·t: never more than 1% above it; never more than 1%
// below it either, except under the race detector, whose slowed clients
// (starved on a loaded machine) may leave up to 5% of the limit unused.
// What the limit grants is the upper side; the lower side measures the
// clients as much as the limiter.
func checkAdmitted(t *testing.T, admitted int64, bound float64) {
	t.Helper()
	assert.LessOrEqual(t, float64(admitted), bound*1.01, "never more than the limit")
	below := 0.01
	if raceDetector {
		below = 0.05
	}
	assert.GreaterOrEqual(t, float64(admitted), bound*(1-below), "the limit used to the full (%.0f%%)", below*100)
}

// With leases of L permits, each of the three processes may hold up to
// L-1 permits counted by Redis before a span and spent in it: the
// overshoot is at most 3 × (L-1). This measures it.
//
// Every goroutine calls Allow (a lease is taken only from permits free
// now), so how close the count comes to the bound from below depends on
// how fast the clients are: it is checked loosely.
func TestSharedLimitWithLeases(t *testing.T) {
	const lease = 10
	admitted, bound := sharedRun(t, replicaRun{Limit: 500, Burst: 50, Lease: lease, Goroutines: 4, CountCalls: true}, 5*time.Second)
	t.Logf("lease %d: admitted %d, burst + R·t = %v, overshoot %+.0f (at most 3 × (lease-1) = %d)",
		lease, admitted, bound, float64(admitted)-bound, 3*(lease-1))
	assert.LessOrEqual(t, float64(admitted), bound*1.01+3*(lease-1))
	assert.GreaterOrEqual(t, float64(admitted), bound*0.8, "leases that expire unspent lose a few permits, not more")
}

// Redis frozen (SIGSTOP) and then killed mid-run: the fallback engages
// within the store timeout, calls keep flowing at the fallback's rate,
// the limiter returns to Redis when it answers again, and nothing leaks.
func TestRedisStoppedMidRun(t *testing.T) {
	needServer(t)
	s, err := startServer(0)
	require.NoError(t, err)
	defer s.stop()
	c := redis.NewClient(&redis.Options{Addr: s.addr(), ContextTimeoutEnabled: true, PoolSize: 4,
		DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	bus := &events.Bus{}
	var mu sync.Mutex
	var seen []events.StoreStateChanged
	defer bus.Subscribe(storeEvents(&mu, &seen))()
	const timeout = 100 * time.Millisecond
	const probe = 300 * time.Millisecond
	l := newLimiter(t, ratelimit.Config{Limit: 100, Period: time.Second, Burst: 10, Store: newStore(t, c),
		StoreTimeout: timeout, FallbackShare: 0.5, ProbeInterval: probe}, policy.Env{Instance: uniq(t), Events: bus})
	h := l.Handle()
	// The first call dials and loads the script: on a loaded machine it
	// may pass the store timeout, and the probe then finds Redis.
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if l.Allow() && !h.Snapshot().Fallback {
			break
		}
	}
	require.False(t, h.Snapshot().Fallback)
	mu.Lock()
	seen = nil
	mu.Unlock()
	base := h.Snapshot().Fallbacks

	// run calls Allow every millisecond for d and returns the calls
	// admitted and the longest call.
	run := func(d time.Duration) (admitted int, longest time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(time.Millisecond) {
			t0 := time.Now()
			if l.Allow() {
				admitted++
			}
			longest = max(longest, time.Since(t0))
		}
		return admitted, longest
	}
	slack := 150 * time.Millisecond // scheduling on a shared machine, under -race

	for _, stop := range []struct {
		name         string
		down, backUp func()
	}{
		{"frozen", s.pause, s.resume},
		{"killed", s.kill, func() { require.NoError(t, s.start()) }},
	} {
		stop.down()
		t0 := time.Now()
		l.Allow()
		assert.Less(t, time.Since(t0), timeout+slack, "%s: the first call waits at most the store timeout", stop.name)
		assert.True(t, h.Snapshot().Fallback, stop.name)

		// The fallback: 50 per second, a burst of 5, probes every 300ms.
		admitted, longest := run(time.Second)
		assert.InDelta(t, 5+50, admitted, 8, "%s: the fallback's rate", stop.name)
		assert.Less(t, longest, timeout+slack, "%s: no call waits past the store timeout", stop.name)
		assert.True(t, h.Snapshot().Fallback)

		stop.backUp()
		back := false
		for end := time.Now().Add(probe + time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
			l.Allow()
			if !h.Snapshot().Fallback {
				back = true
				break
			}
		}
		assert.True(t, back, "%s: back on Redis after it answers again", stop.name)
	}
	mu.Lock()
	require.Len(t, seen, 4)
	for i, e := range seen {
		assert.Equal(t, i%2 == 0, e.Fallback, "event %d", i)
		assert.Equal(t, "local", e.Mode)
	}
	assert.Error(t, seen[0].Err)
	mu.Unlock()
	snap := h.Snapshot()
	assert.Equal(t, base+2, snap.Fallbacks)

	// On Redis again: the limit holds there (the fallback's bucket is not
	// used): 10 of the burst at most.
	n, _ := run(50 * time.Millisecond)
	assert.LessOrEqual(t, n, 10+5+1)

	// No connection leaks: the pool holds at most its size, and the server
	// sees no more clients than that and this test's own.
	assert.LessOrEqual(t, c.PoolStats().TotalConns, uint32(4))
	list, err := c.ClientList(context.Background()).Result()
	require.NoError(t, err)
	assert.LessOrEqual(t, strings.Count(list, "\n"), 4, list)
}
