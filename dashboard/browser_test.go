package dashboard_test

// The tests of this file load the page in headless Chromium (Debian package
// chromium) from a server on loopback and read the charts from the DOM the
// page's script built. They skip when chromium is not installed, and fail
// then when CI=true (.ci/run installs it).

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/dashboard"
	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/pipeline"
)

// chromium returns the browser's path, or skips (fails under CI=true).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true and chromium is not installed (apt-get install -y chromium; .ci/run does)")
	}
	t.Skip("chromium is not installed: apt-get install -y chromium")
	return ""
}

// browse runs headless Chromium on url with extra flags (such as
// --dump-dom) and returns its standard output. Virtual time lets the
// page's timers run (a poll a second) without waiting on the real clock;
// the run is bounded.
func browse(t *testing.T, url string, extra ...string) string {
	t.Helper()
	bin := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(), "--virtual-time-budget=6000"}
	args = append(args, extra...)
	args = append(args, url)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "chromium: %s", stderr.String())
	return string(out)
}

var attrRe = regexp.MustCompile(`data-series="([a-z_]+)" data-values="([^"]*)"`)

// seriesIn returns the data-values of every chart series of the card of
// kind and instance in dom.
func seriesIn(t *testing.T, dom, kind, instance string) map[string]string {
	t.Helper()
	start := strings.Index(dom, `data-kind="`+kind+`" data-instance="`+instance+`"`)
	require.GreaterOrEqual(t, start, 0, "no card for %s %s in the DOM", kind, instance)
	card := dom[start:]
	if end := strings.Index(card[1:], `class="card"`); end >= 0 {
		card = card[:end+1]
	}
	out := map[string]string{}
	for _, m := range attrRe.FindAllStringSubmatch(card, -1) {
		out[m[1]] = m[2]
	}
	return out
}

func figIn(t *testing.T, dom, kind, instance, fig string) string {
	t.Helper()
	start := strings.Index(dom, `data-kind="`+kind+`" data-instance="`+instance+`"`)
	require.GreaterOrEqual(t, start, 0)
	m := regexp.MustCompile(`data-fig="` + fig + `"[^>]*>([^<]*)<`).FindStringSubmatch(dom[start:])
	require.NotNil(t, m, "no figure %s", fig)
	return m[1]
}

// TestPageChartsTheChangingLimitLive loads the page while the limit moves:
// the limit falls from 20 to 14 before the page loads, and from 14 to 10
// between the page's first and second poll of /data. The DOM Chromium
// dumps at the end holds the whole history: the page updated itself.
func TestPageChartsTheChangingLimitLive(t *testing.T) {
	s := newScene(t)
	d, err := dashboard.New(s.reg)
	require.NoError(t, err)
	d.Sample()
	for range 3 {
		s.overload(t)
		d.Sample()
	}

	var mu sync.Mutex
	polls := 0
	var driveErr error
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/data" {
			mu.Lock()
			polls++
			if polls == 2 {
				// Between the first poll and the second, on the server's
				// goroutine, before this poll is answered.
				for range 2 {
					s.clk.Advance(time.Second)
					if _, err := s.search.Execute(func() (int, error) { return 0, errDrop }); !errors.Is(err, errDrop) {
						driveErr = err
					}
					d.Sample()
				}
			}
			mu.Unlock()
		}
		d.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(handler)
	defer srv.Close()

	dom := browse(t, srv.URL+"/", "--dump-dom")
	mu.Lock()
	require.NoError(t, driveErr)
	assert.GreaterOrEqual(t, polls, 3, "the page polls /data again and again")
	mu.Unlock()

	series := seriesIn(t, dom, "adaptivelimit", "search")
	assert.Equal(t, "20,18,16,14,12,10", series["limit"], "the limit chart holds every sample, the two taken after the page loaded included")
	assert.Equal(t, "0,0,0,0,0,0", series["in_flight"])
	assert.Equal(t, "0,1,1,1,1,1", series["dropped"])
	assert.Equal(t, "10", figIn(t, dom, "adaptivelimit", "search", "limit"))
	assert.Contains(t, dom, `data-samples="6"`)
	assert.Contains(t, dom, `<polyline data-series="limit"`)
	for _, kind := range []string{`data-kind="breaker" data-instance="payments"`, `data-kind="ratelimit" data-instance="quotes"`, `data-kind="bulkhead" data-instance="orders"`} {
		assert.Contains(t, dom, kind)
	}
}

// holder keeps calls in flight through ExecuteFuture until released.
type holder struct{ prs []*future.Promise[int] }

func (h *holder) hold(t *testing.T, p *pipeline.Pipeline[int], n int) (admitted int) {
	t.Helper()
	for range n {
		pr := future.NewPromise[int]()
		f := p.ExecuteFuture(context.Background(), func(context.Context) *future.Future[int] { return pr.Future() })
		select {
		case <-f.Done():
			continue // rejected
		default:
		}
		h.prs = append(h.prs, pr)
		admitted++
	}
	return admitted
}

func (h *holder) release(n int) {
	n = min(n, len(h.prs))
	for _, pr := range h.prs[:n] {
		pr.Complete(1)
	}
	h.prs = h.prs[n:]
}

// TestPageShowsEveryKind drives every instance of the scene through a few
// minutes of the ManualClock (a limit that climbs and backs off, a latency
// that drifts, rejections, a breaker that opens, a rate limiter and a
// bulkhead in use) and checks each card. With R4C_DASHBOARD_SCREENSHOT set
// to a path, it also saves a screenshot of the page there (docs/img/
// dashboard.png was made so).
func TestPageShowsEveryKind(t *testing.T) {
	s := newScene(t)
	d, err := dashboard.New(s.reg, dashboard.WithTitle("checkout"))
	require.NoError(t, err)
	var base, extra, orders holder
	defer func() { base.release(len(base.prs)); extra.release(len(extra.prs)); orders.release(len(orders.prs)) }()
	require.Equal(t, 11, base.hold(t, s.search, 11))
	limit := func() int {
		h, err := s.reg.AdaptiveLimit("search")
		require.NoError(t, err)
		return h.Limit()
	}
	for step := range 120 {
		// A latency that drifts between 40ms and 120ms.
		lat := time.Duration(80+40*math.Sin(float64(step)/9)) * time.Millisecond
		if step%15 == 7 {
			// A burst: every slot taken, three calls rejected.
			extra.hold(t, s.search, limit()-len(base.prs)+3)
			extra.release(len(extra.prs))
		}
		s.clk.Advance(time.Second - lat)
		if step%20 == 13 {
			_, _ = s.search.Execute(func() (int, error) { s.clk.Advance(lat); return 0, errDrop })
		} else {
			_, _ = s.search.Execute(func() (int, error) { s.clk.Advance(lat); return 1, nil })
		}
		// payments fail from step 60 on: the breaker opens.
		_, _ = s.pay.Execute(func() (int, error) {
			if step >= 60 {
				return 0, errDrop
			}
			return 1, nil
		})
		// quotes: 2 to 7 calls a second against 5 permits.
		for range 2 + step%6 {
			_, _ = s.quotes.Execute(func() (int, error) { return 1, nil })
		}
		// orders: a wave of calls in flight against 4 slots.
		want := 2 + int(3*math.Sin(float64(step)/6))
		if want > len(orders.prs) {
			orders.hold(t, s.orders, want-len(orders.prs))
		} else {
			orders.release(len(orders.prs) - want)
		}
		d.Sample()
	}
	srv := httptest.NewServer(d)
	defer srv.Close()

	dom := browse(t, srv.URL+"/", "--dump-dom")
	assert.Contains(t, dom, "<title>checkout dashboard</title>")
	series := seriesIn(t, dom, "adaptivelimit", "search")
	assert.Len(t, strings.Split(series["limit"], ","), 120)
	assert.Contains(t, series["rejected"], "3", "the bursts' rejections")
	assert.Equal(t, "open", figIn(t, dom, "breaker", "payments", "state"))
	assert.Contains(t, seriesIn(t, dom, "breaker", "payments")["states"], "closed,open")
	assert.NotEmpty(t, seriesIn(t, dom, "ratelimit", "quotes")["in_use"])
	assert.NotEmpty(t, seriesIn(t, dom, "bulkhead", "orders")["in_flight"])

	if path := os.Getenv("R4C_DASHBOARD_SCREENSHOT"); path != "" {
		browse(t, srv.URL+"/", "--screenshot="+path, "--window-size=1400,1050", "--hide-scrollbars")
		_, err := os.Stat(path)
		require.NoError(t, err)
	}
}
