package main

import (
	"bytes"
	"container/list"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/resilience4cata/r4c/policy"
)

// Every test ends with no goroutine left: the servers, the clients' idle
// connections and every request of the load are closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tinyConfig is the program's configuration shrunk to about two seconds of
// real time and a few hundred requests, so that the test is quick on a
// loaded machine. It asserts nothing about timing.
func tinyConfig(t *testing.T) config {
	cfg := defaultConfig()
	cfg.Duration = 1200 * time.Millisecond
	cfg.Unprotected = 600 * time.Millisecond
	cfg.Workers = 3
	cfg.Service = 20 * time.Millisecond // 150 requests/s at full capacity, 300/s offered
	cfg.Timeout = 200 * time.Millisecond
	cfg.Tick = 200 * time.Millisecond
	cfg.Chart = filepath.Join(t.TempDir(), "chart.svg")
	return cfg
}

func TestRunPrintsProgressAndSummaryAndWritesTheChart(t *testing.T) {
	cfg := tinyConfig(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a safety net only
	defer cancel()

	var out bytes.Buffer
	require.NoError(t, run(ctx, cfg, &out))
	text := out.String()
	t.Log("\n" + text)

	for _, want := range []string{
		"1/2  with r4c: retry → adaptive limit (little)",
		"2/2  without r4c",
		"summary, phase by phase",
		"with r4c (little):",
		"without r4c:",
		"chart: " + cfg.Chart,
	} {
		assert.Contains(t, text, want)
	}
	// A progress line per tick: 6 and 3. The watcher prints every tick,
	// even late.
	assert.Equal(t, 9, progressLines(text))
	// The server did serve: some requests were answered in time.
	m := regexp.MustCompile(`with r4c \(little\): +answered +(\d+)%`).FindStringSubmatch(text)
	require.Len(t, m, 2)
	assert.NotEqual(t, "0", m[1])

	svg, err := os.ReadFile(cfg.Chart)
	require.NoError(t, err)
	root, polylines := parseSVG(t, svg)
	assert.Equal(t, "svg", root)
	assert.Positive(t, polylines)
}

func TestEveryAlgorithmBuilds(t *testing.T) {
	for _, algorithm := range []string{"gradient2", "aimd", "vegas", "little", "AIMD"} {
		cfg := tinyConfig(t)
		cfg.Algorithm = algorithm
		g, err := newProtected(cfg, func(context.Context) (string, error) { return "ok\n", nil })
		require.NoError(t, err, algorithm)
		assert.Equal(t, "with r4c ("+strings.ToLower(algorithm)+")", g.Name())
		assert.NoError(t, g.Do(context.Background()))
	}
}

func TestRunRejectsAnUnknownAlgorithmWithTheLibrarysMessage(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Algorithm = "fastest"
	err := run(context.Background(), cfg, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "R4C-")
	assert.Contains(t, err.Error(), "gradient2")
	assert.NoFileExists(t, cfg.Chart)
}

func TestRunRejectsSettingsThatCannotWork(t *testing.T) {
	for name, change := range map[string]func(*config){
		"no duration":      func(c *config) { c.Duration = 0 },
		"no load":          func(c *config) { c.Load = 0 },
		"NaN load":         func(c *config) { c.Load = math.NaN() },
		"no workers":       func(c *config) { c.Workers = 0 },
		"too many per sec": func(c *config) { c.Load = maxRate },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := tinyConfig(t)
			change(&cfg)
			assert.Error(t, run(context.Background(), cfg, io.Discard))
		})
	}
}

func TestRunStopsEarlyWhenInterrupted(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Duration = time.Minute // far longer than the test waits
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)

	var out bytes.Buffer
	require.NoError(t, run(ctx, cfg, &out))
	assert.Contains(t, out.String(), "summary")
	assert.NotContains(t, out.String(), "2/2", "the run without r4c is skipped")
	assert.FileExists(t, cfg.Chart)
}

func TestServerQueueIsFirstComeFirstServed(t *testing.T) {
	s := &server{workers: 1, queue: list.New(), rng: rand.New(rand.NewPCG(1, 2)), service: time.Millisecond}
	queued := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.queue.Len()
	}
	ctx := context.Background()
	_, err := s.acquire(ctx) // the only worker
	require.NoError(t, err)

	served := make(chan int)
	for i := range 3 {
		go func() {
			_, err := s.acquire(ctx)
			assert.NoError(t, err)
			served <- i
		}()
		require.Eventually(t, func() bool { return queued() == i+1 }, 10*time.Second, time.Millisecond)
	}
	// One more gives up while it waits, and leaves the queue.
	gone, cancel := context.WithCancel(ctx)
	left := make(chan error)
	go func() {
		_, err := s.acquire(gone)
		left <- err
	}()
	require.Eventually(t, func() bool { return queued() == 4 }, 10*time.Second, time.Millisecond)
	cancel()
	assert.ErrorIs(t, <-left, context.Canceled)
	assert.Equal(t, 3, queued())

	for want := range 3 { // each release hands the worker to the oldest waiting request
		s.release()
		assert.Equal(t, want, <-served)
	}
	s.release()
	assert.Zero(t, s.busy)

	// More workers serve the queue at once.
	s.setWorkers(0)
	go func() {
		_, err := s.acquire(ctx)
		assert.NoError(t, err)
		served <- 9
	}()
	require.Eventually(t, func() bool { return queued() == 1 }, 10*time.Second, time.Millisecond)
	s.setWorkers(2)
	assert.Equal(t, 9, <-served)
	s.release()
}

func TestClassify(t *testing.T) {
	for err, want := range map[error]outcome{
		nil: answered,
		fmt.Errorf("wrapped: %w", policy.ErrRejected): rejected,
		context.DeadlineExceeded:                      timedOut,
		errors.New("connection reset"):                failed,
		context.Canceled:                              failed,
	} {
		assert.Equal(t, want, classify(err), "%v", err)
	}
}

func TestOfferIsBoundedInCountAndTime(t *testing.T) {
	var sent atomic.Int64
	send := func(context.Context) { sent.Add(1) }
	rng := rand.New(rand.NewPCG(1, 2))

	// 100 requests expected: never more than twice that, plus 100.
	offer(context.Background(), 1000, 100*time.Millisecond, rng, send)
	assert.LessOrEqual(t, sent.Load(), int64(300))
	assert.Positive(t, sent.Load())

	// A done ctx starts nothing.
	sent.Store(0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	offer(ctx, 1000, time.Hour, rng, send)
	assert.Zero(t, sent.Load())
}

func TestTallyPercentile(t *testing.T) {
	var tl tally
	_, ok := tl.percentile(0.5)
	assert.False(t, ok, "no answered request, no latency")
	for i := 1; i <= 100; i++ {
		tl.add(answered, time.Duration(101-i)*time.Millisecond)
	}
	tl.add(timedOut, time.Second) // not a latency of an answer
	p50, _ := tl.percentile(0.50)
	p99, _ := tl.percentile(0.99)
	assert.Equal(t, 50*time.Millisecond, p50)
	assert.Equal(t, 99*time.Millisecond, p99)
	assert.Equal(t, 101, tl.requests())
}

func TestChartIsValidSVGWithGapsAndEmptyPanels(t *testing.T) {
	c := chart{title: `a <title> & "quotes"`, columns: []string{"left", "right"}, panels: []panel{
		{title: "gaps", xMax: 10, lines: []line{{name: "a", color: blue, points: []point{
			{0, 1}, {1, math.NaN()}, {2, 3}, {3, 4}, {4, math.NaN()}, {5, 2}}}}},
		{title: "empty", xMax: 0, lines: []line{{name: "none", color: red}}},
		{title: "fixed scale, clipped", xMax: 5, yMax: 10, unit: "ms", shade: [2]float64{1, 2},
			lines: []line{{name: "b", color: green, dashed: true, points: []point{{0, 50}, {10, -5}}}}},
	}}
	root, polylines := parseSVG(t, c.svg())
	assert.Equal(t, "svg", root)
	assert.Equal(t, 2, polylines, "one in the first panel (its lone points are dots), one in the third")

	// Axes out of range fall back to something drawable, and end.
	for _, v := range []float64{0, -1, 1e-320, math.Inf(1), math.NaN()} {
		c := chart{panels: []panel{{xMax: v, yMax: v, lines: []line{{points: []point{{0, v}, {1, v}}}}}}}
		root, _ := parseSVG(t, c.svg())
		assert.Equal(t, "svg", root, "%v", v)
	}
}

// progressLines counts the lines of text that look like progress lines:
// nine columns, the first a duration.
func progressLines(text string) int {
	n := 0
	for l := range strings.Lines(text) {
		f := strings.Fields(l)
		if len(f) != 9 {
			continue
		}
		if _, err := time.ParseDuration(f[0]); err == nil {
			n++
		}
	}
	return n
}

// parseSVG checks that svg is well-formed XML and returns the name of its
// root element and the number of polylines it has.
func parseSVG(t *testing.T, svg []byte) (root string, polylines int) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return root, polylines
		}
		require.NoError(t, err)
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			if se.Name.Local == "polyline" {
				polylines++
			}
		}
	}
}

func TestRunServesTheDashboard(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Unprotected = 200 * time.Millisecond
	cfg.Dashboard = "127.0.0.1:0"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a safety net only
	defer cancel()
	var out bytes.Buffer
	require.NoError(t, run(ctx, cfg, &out))
	assert.Regexp(t, `dashboard  http://127\.0\.0\.1:\d+/r4c/ \(live while the run through r4c goes on\)`, out.String())
}

func TestDashboardServesTheRegistry(t *testing.T) {
	p, err := newProtected(tinyConfig(t), func(context.Context) (string, error) { return "ok", nil })
	require.NoError(t, err)
	l, err := startDashboard("127.0.0.1:0", p.reg)
	require.NoError(t, err)
	defer func() { require.NoError(t, l.stop()) }()
	for path, want := range map[string]string{"data": `"adaptive_limits":[{"id":"backend"`, "": "<title>r4c dashboard</title>"} {
		resp, err := http.Get(l.url + path)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, string(b), want)
	}
	_, err = startDashboard("127.0.0.1:-1", p.reg)
	assert.ErrorContains(t, err, "-dashboard 127.0.0.1:-1")
}
