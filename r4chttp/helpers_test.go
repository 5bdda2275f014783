package r4chttp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// newReg returns a registry on a ManualClock whose adaptive limits start
// at limit, and record a window at the first sample 1ms after the last.
func newReg(t *testing.T, limit int, opts ...r4c.Option) (*r4c.Registry, *clocktest.ManualClock) {
	t.Helper()
	clk := clocktest.NewManualClock()
	opts = append([]r4c.Option{
		r4c.WithClock(clk),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) {
			c.InitialLimit, c.MinLimit, c.MaxLimit = limit, 1, limit
			c.MinWindowSamples = 1
			c.Window = time.Millisecond
		}),
	}, opts...)
	reg, err := r4c.NewRegistry(opts...)
	require.NoError(t, err)
	return reg, clk
}

func snapshot(t *testing.T, reg *r4c.Registry, name string) adaptivelimit.Snapshot {
	t.Helper()
	h, err := reg.AdaptiveLimit(name)
	require.NoError(t, err)
	return h.Snapshot()
}

// eventually waits, on the real clock but bounded, until cond holds:
// for conditions another goroutine makes true (a server's handler
// returning after the response went out).
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("timed out: " + msg)
		case <-time.After(time.Millisecond):
		}
	}
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("timed out waiting")
		panic("unreachable")
	}
}

// get sends a GET to url with c and returns the response, body read.
func get(t *testing.T, c *http.Client, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b := readAll(t, resp)
	return resp, b
}
