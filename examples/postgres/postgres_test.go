package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/timeout"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The sweep finds the knee of a processor-sharing server: with 2 cores and
// queries of 10 ms of CPU, 2 clients reach the capacity of 200/s, and past
// them the queries only slow down.
func TestSweepFindsTheKneeOfAProcessorSharingServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := newPSServer(2, 10*time.Millisecond)
		steps := sweep(t.Context(), db.query, time.Second, 32, 100*time.Millisecond)
		capacity, knee := kneeOf(steps)

		assert.Equal(t, 2, knee)
		assert.InDelta(t, 200, capacity, 10)
		require.Greater(t, len(steps), 4)
		assert.InDelta(t, 100, steps[0].rate, 5, "one client: one query at a time")
		assert.Equal(t, 10*time.Millisecond, steps[0].p50)
		for _, s := range steps[1:] {
			assert.InDelta(t, 200, s.rate, 10, "%d clients", s.clients)
			assert.InDelta(t, float64(s.clients)*5, float64(s.p50)/float64(time.Millisecond), float64(s.clients)*1+1,
				"%d clients share 2 cores: each query takes clients/2 × 10 ms", s.clients)
		}
		// It stops after the first step whose p50 passes 100 ms: 24 clients
		// (120 ms); the levels below it all stayed under.
		last := steps[len(steps)-1]
		assert.Equal(t, 24, last.clients)
		assert.Greater(t, last.p50, 100*time.Millisecond)
		db.running.Wait()
	})
}

func TestSweepLevels(t *testing.T) {
	assert.Equal(t, []int{1}, sweepLevels(1))
	assert.Equal(t, []int{1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32}, sweepLevels(32))
	assert.Equal(t, []int{1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 42, 56, 74, 98}, sweepLevels(100))
}

func TestKneeOf(t *testing.T) {
	// The plateau starts at the first step within 90% of the best (2
	// clients: 180 >= 0.9 × 200); its median is (180+192)/2 = 186; the
	// knee is the first step within 95% of that (176.7).
	steps := []step{{clients: 1, rate: 100}, {clients: 2, rate: 180}, {clients: 3, rate: 192}, {clients: 4, rate: 200}, {clients: 6, rate: 150}}
	capacity, knee := kneeOf(steps)
	assert.Equal(t, 186.0, capacity)
	assert.Equal(t, 2, knee)

	// A noisy sweep whose luckiest step comes late (what a shared machine
	// gives): the plateau's median, not the best, sets the knee.
	noisy := []step{{clients: 1, rate: 128}, {clients: 2, rate: 134}, {clients: 3, rate: 133}, {clients: 4, rate: 132},
		{clients: 5, rate: 133}, {clients: 6, rate: 144}, {clients: 8, rate: 141}, {clients: 10, rate: 141}, {clients: 12, rate: 142}}
	capacity, knee = kneeOf(noisy)
	assert.Equal(t, 137.5, capacity)
	assert.Equal(t, 2, knee, "6 would be the fewest clients within 95% of the best step")

	capacity, knee = kneeOf(nil)
	assert.Zero(t, capacity)
	assert.Zero(t, knee)
	capacity, knee = kneeOf([]step{{clients: 1}, {clients: 2}})
	assert.Zero(t, capacity)
	assert.Zero(t, knee, "every step measured nothing: run reports it as no throughput")
}

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	assert.Zero(t, percentile(nil, 0.5))
	assert.Equal(t, 7*time.Millisecond, percentile(ms(7), 0.99))
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	assert.Equal(t, 50*time.Millisecond, percentile(ms(hundred...), 0.50))
	assert.Equal(t, 99*time.Millisecond, percentile(ms(hundred...), 0.99))
	assert.Equal(t, 1*time.Millisecond, percentile(ms(hundred...), 0))
	assert.Equal(t, 100*time.Millisecond, percentile(ms(hundred...), 1))
}

func TestClassify(t *testing.T) {
	const deadline = 70 * time.Millisecond
	limitErr := fmt.Errorf("wrapped: %w", &policy.RejectedError{Kind: "adaptiveLimit", Instance: "postgres", Err: adaptivelimit.ErrLimitExceeded})
	cases := []struct {
		name    string
		err     error
		elapsed time.Duration
		want    outcome
	}{
		{"answered in time", nil, 10 * time.Millisecond, ok},
		{"answered at the deadline", nil, deadline, ok},
		{"answered late", nil, deadline + time.Millisecond, timedOut},
		{"rejected by a limit", limitErr, 0, rejected},
		{"r4c's timeout", fmt.Errorf("x: %w", timeout.ErrCallTimeout), deadline, timedOut},
		{"the context's deadline", fmt.Errorf("timeout: %w", context.DeadlineExceeded), deadline, timedOut},
		{"a driver error at the deadline", errors.New("read tcp: i/o timeout"), deadline, timedOut},
		{"a driver error before it", errors.New("too many clients"), time.Millisecond, failed},
		{"interrupted", context.Canceled, time.Millisecond, failed},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, classify(c.err, c.elapsed, deadline), c.name)
	}
	assert.True(t, errors.Is(limitErr, policy.ErrRejected))
	assert.True(t, errors.Is(fmt.Errorf("%w", bulkhead.ErrFull), policy.ErrBulkheadFull))
}

// offer sends a Poisson load: for a seed, a fixed number of queries close
// to rate × duration, spread over the duration, and it returns only once
// every query it sent has ended.
func TestOfferSendsAPoissonLoadAndWaitsForIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sent, ended atomic.Int64
		var perSecond [10]atomic.Int64
		start := time.Now()
		offer(t.Context(), 200, 10*time.Second, rand.New(rand.NewPCG(1, 2)), func() {
			sent.Add(1)
			perSecond[time.Since(start)/time.Second].Add(1)
			time.Sleep(500 * time.Millisecond)
			ended.Add(1)
		})
		assert.Equal(t, sent.Load(), ended.Load(), "offer returned before its queries ended")
		assert.InDelta(t, 2000, sent.Load(), 2000*0.05)
		for i := range perSecond {
			assert.InDelta(t, 200, perSecond[i].Load(), 200*0.25, "second %d", i)
		}
		assert.Equal(t, 10*time.Second+500*time.Millisecond, time.Since(start).Round(100*time.Millisecond))
	})
}

// offer stops sending once its ctx is done, and at twice the expected
// count whatever the random draws.
func TestOfferStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		var sent atomic.Int64
		start := time.Now()
		offer(ctx, 100, time.Minute, rand.New(rand.NewPCG(3, 4)), func() { sent.Add(1) })
		assert.Equal(t, 2*time.Second, time.Since(start))
		assert.InDelta(t, 200, sent.Load(), 60)
	})
}

// study against a processor-sharing model at twice its capacity: without a
// limit, the queries share the CPU until each takes longer than the
// deadline and almost none is answered in time; a bulkhead at the knee
// serves close to the capacity; the adaptive limits run, report their limit
// second by second, and leave nothing running.
func TestStudyComparesTheClients(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := newPSServer(2, 10*time.Millisecond)
		cfg := defaultConfig()
		cfg.DSN = "model"
		cfg.Loads = []float64{2}
		cfg.Duration, cfg.Warmup = 12*time.Second, 4*time.Second
		cfg.SweepStep = 500 * time.Millisecond
		var out bytes.Buffer
		m, results, err := study(t.Context(), cfg, db, &out)
		require.NoError(t, err)

		assert.Equal(t, 10*time.Millisecond, m.alone)
		assert.Equal(t, 100*time.Millisecond, m.deadline)
		assert.Equal(t, 2, m.knee)
		assert.InDelta(t, 200, m.capacity, 10)
		require.Len(t, results, len(clientNames))
		byName := map[string]*result{}
		for _, r := range results {
			byName[r.client] = r
			assert.Equal(t, 2.0, r.load)
			assert.Zero(t, r.failed, r.client)
			assert.Equal(t, r.offered, r.answered+r.timedOut+r.rejected+r.failed, r.client)
			assert.Equal(t, r.admitted, r.answered+r.timedOut, r.client)
			assert.InDelta(t, 2*200*8, r.offered, 2*200*8*0.1, "%s: the steady 8 s at 400/s", r.client)
			assert.Len(t, r.limits, 12, r.client)
			assert.Len(t, r.goodBySecond, 12, r.client)
			assert.Len(t, r.running, 12, r.client)
		}
		none := byName["no limit"]
		require.NotNil(t, none)
		assert.Less(t, none.goodput, 0.2, "without a limit the server is swamped")
		assert.Zero(t, none.rejected)
		assert.Greater(t, none.timedOut, none.admitted/2)
		// The model works on until the end of every query whose client
		// gave up: twice the work it can do
		// arrives, and the queries it runs pile up far beyond those the
		// client waits for.
		require.Len(t, none.running, 12)
		assert.Greater(t, none.running[11], 5*none.inFlight[11])
		assert.Greater(t, none.running[11], none.running[5])

		bh := byName["bulkhead 2 (the knee)"]
		require.NotNil(t, bh)
		// A bulkhead that rejects at once is a loss system: with 2 slots
		// and 4 Erlangs offered (400/s × 10 ms), Erlang's B formula gives
		// the share rejected, (4²/2!)/(1 + 4 + 4²/2!) = 8/13, and the
		// slots are busy 4 × 5/13 / 2 = 77% of the time: a slot that frees
		// waits for the next arrival.
		assert.InDelta(t, 8.0/13, float64(bh.rejected)/float64(bh.offered), 0.03)
		assert.InDelta(t, 10.0/13, bh.goodput, 0.03)
		assert.Equal(t, 10*time.Millisecond, bh.p99, "two at a time on two cores: no wait")
		assert.Equal(t, 2.0, bh.limitMean)
		for s, g := range bh.goodBySecond {
			assert.InDelta(t, 77, g, 12, "second %d: the bulkhead serves 10/13 of the capacity from the start", s)
		}

		for _, alg := range []string{"gradient2", "aimd", "vegas", "little"} {
			r := byName["r4c "+alg]
			require.NotNil(t, r, alg)
			assert.Equal(t, adaptivelimit.DefaultInitialLimit, r.limits[0], "%s starts at the default initial limit", alg)
			assert.Positive(t, r.limitSamples, alg)
			assert.LessOrEqual(t, r.limitMin, r.limitMax, alg)
		}
		for _, peer := range []string{"failsafe-go", "go-concurrency-limits"} {
			r := byName[peer]
			require.NotNil(t, r, peer)
			assert.Positive(t, r.limitSamples, peer)
			assert.GreaterOrEqual(t, r.limitMin, 1, peer)
			assert.LessOrEqual(t, r.limitMax, peerMaxLimit, peer)
		}
		// Little is the algorithm we recommend: here it must beat no limit
		// by far.
		assert.Greater(t, byName["r4c little"].goodput, 0.6)

		text := out.String()
		assert.Contains(t, text, " queries/s (the median of the plateau), reached (95%) at concurrency 2: the knee\n")
		assert.Contains(t, text, "| 2 ← knee |")
		assert.Equal(t, len(clientNames)+1, db.freshCalls, "a fresh server for the calibration and each run")

		var report bytes.Buffer
		printReport(&report, cfg, m, results)
		for _, r := range results {
			assert.Contains(t, report.String(), "| 2x | "+r.client+" | ")
		}
		db.running.Wait()
	})
}

// Interrupted, run prints what it measured and says so.
func TestRunInterrupted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := newPSServer(2, 10*time.Millisecond)
		cfg := defaultConfig()
		cfg.DSN = "model"
		cfg.SweepStep = 200 * time.Millisecond
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var out bytes.Buffer
		// The sweep takes about 2.2 s; the first run, 15 s.
		time.AfterFunc(5*time.Second, cancel)
		require.NoError(t, run(ctx, cfg, db, &out))
		text := out.String()
		assert.Contains(t, text, "| 2x | no limit |")
		assert.NotContains(t, text, "| 2x | bulkhead")
		assert.Contains(t, text, "(interrupted: the figures above are what was measured until then)")
		db.running.Wait()
	})
}

func TestPrintReport(t *testing.T) {
	m := measured{alone: 7300 * time.Microsecond, capacity: 270, knee: 3, deadline: 73 * time.Millisecond}
	cfg := defaultConfig()
	results := []*result{
		{load: 2, client: "no limit", offered: 1000, admitted: 1000, answered: 10, timedOut: 990, goodput: 0.01,
			p50: 73 * time.Millisecond, p99: 74 * time.Millisecond, inFlight: []int{40, 80}, running: []int{45, 120}, conns: []int{50, 130}},
		{load: 2, client: "r4c little", limited: true, offered: 1000, admitted: 500, answered: 495, timedOut: 5,
			rejected: 499, failed: 1, failures: map[string]int{"boom": 1}, goodput: 0.92,
			p50: 9 * time.Millisecond, p99: 31 * time.Millisecond,
			limits: []int{20, 8}, goodBySecond: []int{0, 95}, running: []int{30, -1}, conns: []int{35, -1}, limitMean: 4.5, limitMin: 3, limitMax: 6, limitSamples: 100},
	}
	var out bytes.Buffer
	printReport(&out, cfg, m, results)
	text := out.String()
	assert.Contains(t, text, "query alone 7.3 ms, capacity 270 queries/s at concurrency 3, client deadline 73 ms;")
	assert.Contains(t, text, "| 2x | no limit | 0.01 | 73 ms | 74 ms | 99% | 0% | 0% | - |")
	assert.Contains(t, text, "| 2x | r4c little | 0.92 | 9.0 ms | 31 ms | 1% | 50% | 0.1% | 4.5 (3-6) |")
	assert.Contains(t, text, "the limit at the end of each second (for no limit: the queries in flight):\n\n```\n"+
		"2x   no limit    40  80\n"+
		"2x   r4c little  20   8\n```\n")
	assert.Contains(t, text, "(the queries sent that second and answered in time):\n\n```\n"+
		"2x   no limit   \n"+
		"2x   r4c little   0  95\n```\n")
	assert.Contains(t, text, "(those whose client gave up included):\n\n```\n"+
		"2x   no limit    45 120\n"+
		"2x   r4c little  30   ?\n```\n")
	assert.Contains(t, text, "a timeout closes one, the next query opens another):\n\n```\n"+
		"2x   no limit    50 130\n"+
		"2x   r4c little  35   ?\n```\n")
	assert.Contains(t, text, "failures, 2x r4c little:\n      1  boom\n")
}

func TestConfigCheck(t *testing.T) {
	good := defaultConfig()
	good.DSN = "host=127.0.0.1"
	require.NoError(t, good.check())

	cases := []struct {
		set  func(*config)
		want string
	}{
		{func(c *config) { c.DSN = "" }, "-dsn is empty"},
		{func(c *config) { c.QueryTime = 0 }, "-query-time 0s: must be between 100µs and 10s"},
		{func(c *config) { c.Loads = nil }, "-loads is empty"},
		{func(c *config) { c.Loads = []float64{2, -1} }, "-loads -1: each load must be above 0 and at most 100"},
		{func(c *config) { c.Clients = nil }, "-clients is empty"},
		{func(c *config) { c.Clients = []string{"little", "magic"} }, `-clients "magic": unknown client`},
		{func(c *config) { c.Duration = time.Millisecond }, "-duration 1ms: must be between 100ms and 1h"},
		{func(c *config) { c.Warmup = c.Duration }, "-warmup 15s: must be at least 0 and shorter than -duration 15s"},
		{func(c *config) { c.DeadlineX = 0.5 }, "-deadline-x 0.5: must be between 1 and 1000"},
		{func(c *config) { c.SweepStep = time.Millisecond }, "-sweep-step 1ms: must be between 50ms and 1m"},
		{func(c *config) { c.SweepMax = 0 }, "-sweep-max 0: must be between 1 and 1000"},
		{func(c *config) { c.Pool = 0 }, "-pool 0: must be between 1 and 10000"},
		{func(c *config) { c.InitialLimit = -1 }, "-initial-limit -1: must be between 0 (each limit's default) and 200"},
		{func(c *config) { c.InitialLimit = 201 }, "-initial-limit 201: must be between 0"},
	}
	for _, c := range cases {
		cfg := good
		c.set(&cfg)
		err := cfg.check()
		if assert.Error(t, err, c.want) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}

func TestListFlags(t *testing.T) {
	var loads []float64
	f := floatList{&loads}
	require.NoError(t, f.Set("2, 4x,,0.5"))
	assert.Equal(t, []float64{2, 4, 0.5}, loads)
	assert.Equal(t, "2,4,0.5", f.String())
	assert.EqualError(t, f.Set("2,lots"), `"lots" is not a number`)

	var names []string
	s := stringList{&names}
	require.NoError(t, s.Set(" None,LITTLE ,"))
	assert.Equal(t, []string{"none", "little"}, names)
	assert.Equal(t, "none,little", s.String())
}

func TestNewClient(t *testing.T) {
	q := func(context.Context) error { return nil }
	for _, name := range clientNames {
		c, err := newClient(name, 3, 0, 50*time.Millisecond, q)
		require.NoError(t, err, name)
		require.NoError(t, c.do(t.Context()), name)
		lim, limited := c.limit()
		switch name {
		case "none":
			assert.False(t, limited)
		case "bulkhead":
			assert.Equal(t, 3, lim)
		case "failsafe-go", "go-concurrency-limits":
			assert.Equal(t, peerInitial, lim, name)
			assert.Equal(t, name, c.label())
		default:
			assert.Equal(t, adaptivelimit.DefaultInitialLimit, lim, name)
			assert.Equal(t, "r4c "+name, c.label())
		}
	}
	for _, name := range clientNames[2:] {
		c, err := newClient(name, 3, 4, 50*time.Millisecond, q)
		require.NoError(t, err, name)
		lim, _ := c.limit()
		assert.Equal(t, 4, lim, "%s starts at -initial-limit", name)
	}
	_, err := newClient("magic", 3, 0, time.Millisecond, q)
	assert.ErrorContains(t, err, `client "magic"`)
}

// The unlimited client counts an answer that comes after the deadline as
// a timeout, as r4c's timeout does.
func TestUnlimitedLateAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &unlimited{deadline: 10 * time.Millisecond, q: func(ctx context.Context) error {
			time.Sleep(20 * time.Millisecond) // ignores its ctx
			return nil
		}}
		assert.ErrorIs(t, c.do(t.Context()), context.DeadlineExceeded)
	})
}

func TestRunScriptParses(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	out, err := exec.Command(bash, "-n", "run.sh").CombinedOutput()
	assert.NoError(t, err, string(out))
}

// TestAgainstPostgres runs the whole demo, briefly, against a real server
// that run.sh starts. It needs the PostgreSQL server binaries and takes
// about a minute, so it runs only when R4C_PG_INTEGRATION=1.
func TestAgainstPostgres(t *testing.T) {
	if os.Getenv("R4C_PG_INTEGRATION") != "1" {
		t.Skip("set R4C_PG_INTEGRATION=1 to run the demo against a real PostgreSQL (run.sh starts one)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "./run.sh", "-duration", "3s", "-warmup", "1s", "-loads", "2",
		"-clients", "none,bulkhead,little", "-sweep-step", "400ms", "-sweep-max", "12")
	// On timeout, let the script stop the server and remove its files.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	out, err := cmd.CombinedOutput()
	text := string(out)
	require.NoError(t, err, text)
	for _, want := range []string{"server pid", "PostgreSQL", "← knee", "| 2x | no limit |", "| 2x | bulkhead ", "| 2x | r4c little |"} {
		assert.Contains(t, text, want)
	}
	assert.False(t, strings.Contains(text, "failures,"), "no query failed:\n%s", text)
}
