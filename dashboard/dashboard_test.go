package dashboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/dashboard"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

var errDrop = errors.New("overloaded")

// scene is a registry on a ManualClock with one instance of each kind the
// dashboard charts.
type scene struct {
	clk    *clocktest.ManualClock
	reg    *r4c.Registry
	search *pipeline.Pipeline[int] // AIMD from 20, one sample per window; errDrop is a drop
	pay    *pipeline.Pipeline[int] // breaker opening after 2 failures of 2
	quotes *pipeline.Pipeline[int] // 5 permits per second
	orders *pipeline.Pipeline[int] // bulkhead of 4
}

func newScene(t testing.TB) *scene {
	t.Helper()
	clk := clocktest.NewManualClock()
	reg, err := r4c.NewRegistry(r4c.WithClock(clk))
	require.NoError(t, err)
	s := &scene{clk: clk, reg: reg}
	s.search, err = pipeline.NewBuilder[int](reg, "search").AdaptiveLimit(func(c *adaptivelimit.Config) {
		c.Algorithm = adaptivelimit.AIMD
		c.InitialLimit = 20
		c.MinWindowSamples = 1
		c.DropOn = []error{errDrop}
	}).Build()
	require.NoError(t, err)
	s.pay, err = pipeline.NewBuilder[int](reg, "payments").
		Breaker(func(c *breaker.Config) { c.MinimumCalls, c.WindowSize = 2, 2 }).Build()
	require.NoError(t, err)
	s.quotes, err = pipeline.NewBuilder[int](reg, "quotes").
		RateLimit(func(c *ratelimit.Config) { c.Limit, c.Period, c.Burst = 5, time.Second, 5 }).Build()
	require.NoError(t, err)
	s.orders, err = pipeline.NewBuilder[int](reg, "orders").
		Bulkhead(func(c *bulkhead.Config) { c.MaxConcurrent = 4 }).Build()
	require.NoError(t, err)
	return s
}

// overload ends a window of search with a drop: AIMD lowers the limit by
// 10% (integer part).
func (s *scene) overload(t testing.TB) int {
	t.Helper()
	s.clk.Advance(time.Second)
	_, err := s.search.Execute(func() (int, error) { return 0, errDrop })
	require.ErrorIs(t, err, errDrop)
	h, err := s.reg.AdaptiveLimit("search")
	require.NoError(t, err)
	return h.Limit()
}

func get(t testing.TB, h http.Handler, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

func TestNewRejectsBadOptions(t *testing.T) {
	_, err := dashboard.New(nil)
	require.ErrorIs(t, err, dashboard.ErrNilRegistry)
	reg, err := r4c.NewRegistry()
	require.NoError(t, err)
	for _, tc := range []struct {
		opt  dashboard.Option
		want string
	}{
		{dashboard.WithInterval(time.Millisecond), "R4C-ATR-004 dashboard.interval=1ms: must be at least 10ms"},
		{dashboard.WithHistory(1), "R4C-ATR-005 dashboard.history=1: must be between 2 and 100000"},
		{dashboard.WithHistory(100001), "R4C-ATR-005 dashboard.history=100001: must be between 2 and 100000"},
	} {
		d, err := dashboard.New(reg, tc.opt)
		assert.Nil(t, d)
		var ce *r4c.ConfigError
		require.ErrorAs(t, err, &ce)
		require.ErrorIs(t, err, r4c.ErrConfig)
		assert.EqualError(t, err, tc.want)
	}
	d, err := dashboard.New(reg, nil, dashboard.WithInterval(50*time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, 50*time.Millisecond, d.Interval())
}

func TestRoutes(t *testing.T) {
	s := newScene(t)
	d, err := dashboard.New(s.reg, dashboard.WithTitle("payments-api"))
	require.NoError(t, err)

	page := get(t, d, http.MethodGet, "/")
	assert.Equal(t, http.StatusOK, page.Code)
	assert.Equal(t, "text/html; charset=utf-8", page.Header().Get("Content-Type"))
	body := page.Body.String()
	assert.Contains(t, body, `fetch("data"`)
	for _, outside := range []string{"http://", "https://", "//cdn", "<link"} {
		if outside == "http://" {
			// The SVG namespace is a name, not a fetch.
			body = strings.ReplaceAll(body, `"http://www.w3.org/2000/svg"`, "")
		}
		assert.NotContains(t, body, outside, "the page fetches nothing from outside")
	}
	assert.Equal(t, http.StatusOK, get(t, d, http.MethodGet, "/index.html").Code)
	assert.Equal(t, http.StatusOK, get(t, d, http.MethodHead, "/").Code)

	redirect := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/r4c?x=1", nil)
	http.StripPrefix("/r4c", d).ServeHTTP(redirect, req)
	assert.Equal(t, http.StatusMovedPermanently, redirect.Code)
	assert.Equal(t, "/r4c/", redirect.Header().Get("Location"))

	data := get(t, d, http.MethodGet, "/data")
	assert.Equal(t, "application/json", data.Header().Get("Content-Type"))
	var got struct {
		Title string `json:"title"`
	}
	require.NoError(t, json.Unmarshal(data.Body.Bytes(), &got))
	assert.Equal(t, "payments-api", got.Title)

	snap := get(t, d, http.MethodGet, "/snapshot")
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(snap.Body.Bytes(), &m))
	assert.Contains(t, m, "AdaptiveLimits")

	assert.Equal(t, http.StatusNotFound, get(t, d, http.MethodGet, "/nope").Code)
	post := get(t, d, http.MethodPost, "/data")
	assert.Equal(t, http.StatusMethodNotAllowed, post.Code)
	assert.Equal(t, "GET, HEAD", post.Header().Get("Allow"))
}

func TestDataFollowsTheLimitSampleBySample(t *testing.T) {
	s := newScene(t)
	d, err := dashboard.New(s.reg)
	require.NoError(t, err)
	d.Sample()
	var limits []float64
	limits = append(limits, 20)
	for range 3 {
		limits = append(limits, float64(s.overload(t)))
		d.Sample()
	}
	assert.Equal(t, []float64{20, 18, 16, 14}, limits)
	got := d.Data() // the last sample is fresh: no new one
	require.Len(t, got.AdaptiveLimits, 1)
	a := got.AdaptiveLimits[0]
	assert.Equal(t, "search", a.ID)
	assert.Equal(t, "aimd", a.Algorithm)
	assert.Equal(t, dashboard.Values(limits), a.Limit)
	assert.Equal(t, dashboard.Values{0, 0, 0, 0}, a.InFlight)
	assert.Equal(t, dashboard.Values{0, 1, 1, 1}, a.Dropped)
	require.Len(t, got.Times, 4)
	assert.Equal(t, int64(1000), got.Times[1]-got.Times[0], "a sample per second of the ManualClock")

	// Every instance is there, sorted by kind and id.
	require.Len(t, got.Breakers, 1)
	assert.Equal(t, "closed", got.Breakers[0].State)
	require.Len(t, got.RateLimits, 1)
	assert.Equal(t, 5, got.RateLimits[0].Burst)
	require.Len(t, got.Bulkheads, 1)
	assert.Equal(t, 4, got.Bulkheads[0].Max)

	// A request after Interval samples by itself.
	s.clk.Advance(time.Second)
	assert.Len(t, d.Data().Times, 5)
}

func TestHistoryIsABoundedRing(t *testing.T) {
	s := newScene(t)
	d, err := dashboard.New(s.reg, dashboard.WithHistory(3))
	require.NoError(t, err)
	for range 5 {
		d.Sample()
		s.clk.Advance(time.Second)
	}
	s.clk.Advance(-time.Second)
	got := d.Data()
	require.Len(t, got.Times, 3, "the oldest samples went")
	assert.Equal(t, []int64{got.Times[0], got.Times[0] + 1000, got.Times[0] + 2000}, got.Times, "oldest first")
}

func TestInstancesBuiltLaterAreNullBefore(t *testing.T) {
	s := newScene(t)
	d, err := dashboard.New(s.reg)
	require.NoError(t, err)
	d.Sample()
	s.clk.Advance(time.Second)
	_, err = pipeline.NewBuilder[int](s.reg, "late").AdaptiveLimit(nil).Build()
	require.NoError(t, err)
	d.Sample()
	raw := get(t, d, http.MethodGet, "/data").Body.String()
	assert.Contains(t, raw, `"id":"late","algorithm":"gradient2","min_limit":1,"max_limit":200,"limit":[null,20]`)
}

func TestRunSamplesOnTheRegistrysClock(t *testing.T) {
	s := newScene(t)
	d, err := dashboard.New(s.reg, dashboard.WithInterval(100*time.Millisecond))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- d.Run(ctx) }()
	for range 4 {
		require.NoError(t, s.clk.BlockUntil(ctx, 1))
		s.clk.Advance(100 * time.Millisecond)
	}
	require.NoError(t, s.clk.BlockUntil(ctx, 1))
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	assert.Len(t, d.Data().Times, 5, "one sample at start and one per interval")
}

func TestServedOverLoopback(t *testing.T) {
	s := newScene(t)
	d, err := dashboard.New(s.reg)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/r4c/", http.StripPrefix("/r4c", d))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/r4c/data")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"adaptive_limits":[{"id":"search"`)
}
