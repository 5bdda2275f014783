package r4chttp_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/resilience4cata/r4c/r4chttp"
)

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// gate is a handler that blocks each request until released, and tells
// when one has entered.
type gate struct {
	entered chan struct{}
	release chan struct{}
	status  int
}

func newGate(status int) *gate {
	return &gate{entered: make(chan struct{}, 16), release: make(chan struct{}), status: status}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.entered <- struct{}{}
	select {
	case <-g.release:
	case <-r.Context().Done():
	}
	w.WriteHeader(g.status)
	_, _ = io.WriteString(w, "done")
}

// serve starts a real server on loopback with h wrapped by the server
// pipeline name of reg.
func serve(t *testing.T, reg *r4c.Registry, name string, h http.Handler, cfg r4chttp.ServerConfig, more ...func(*pipeline.Builder[int])) *httptest.Server {
	t.Helper()
	p, err := r4chttp.NewServerPipeline(reg, name, more...)
	require.NoError(t, err)
	hd, err := r4chttp.NewHandler(p, h, cfg)
	require.NoError(t, err)
	srv := httptest.NewServer(hd)
	t.Cleanup(srv.Close)
	return srv
}

func TestServerRejectsAtOnceWhenTheLimitIsFull(t *testing.T) {
	reg, _ := newReg(t, 1)
	g := newGate(http.StatusOK)
	var calls atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1); g.ServeHTTP(w, r) })
	srv := serve(t, reg, "api", h, r4chttp.ServerConfig{RejectBody: "busy, come back later\n"})

	first := make(chan *http.Response, 1)
	go func() {
		resp, err := srv.Client().Get(srv.URL)
		if err == nil {
			_, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		first <- resp
	}()
	recv(t, g.entered)

	resp, body := get(t, srv.Client(), srv.URL)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "busy, come back later\n", body)
	assert.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Empty(t, resp.Header.Get("Retry-After"), "an adaptive limit knows no wait")
	assert.EqualValues(t, 1, calls.Load(), "the rejected request never reached the handler")
	assert.EqualValues(t, 1, snapshot(t, reg, "api").Rejections)

	close(g.release)
	r1 := recv(t, first)
	require.NotNil(t, r1)
	assert.Equal(t, http.StatusOK, r1.StatusCode)
	eventually(t, func() bool { return snapshot(t, reg, "api").InFlight == 0 }, "the slot is freed")
}

func TestServerRateLimitAnswers429WithRetryAfter(t *testing.T) {
	reg, clk := newReg(t, 10, r4c.WithRateLimitDefaults(func(c *ratelimit.Config) {
		c.Limit = 1
		c.Period = 10 * time.Second
	}))
	srv := serve(t, reg, "api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), r4chttp.ServerConfig{},
		func(b *pipeline.Builder[int]) { b.RateLimit(nil) })

	resp, _ := get(t, srv.Client(), srv.URL)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	clk.Advance(2500 * time.Millisecond)
	resp, body := get(t, srv.Client(), srv.URL)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "8", resp.Header.Get("Retry-After"), "7.5s until the next permit, rounded up to whole seconds")
	assert.Empty(t, body)
}

func TestServerRejectionStatusAndOnReject(t *testing.T) {
	reg, _ := newReg(t, 1)
	g := newGate(http.StatusOK)
	var seen error
	srv := serve(t, reg, "api", g, r4chttp.ServerConfig{OnReject: func(w http.ResponseWriter, r *http.Request, err error) {
		seen = err
		w.Header().Set("X-Shed", "yes")
		w.WriteHeader(http.StatusTooManyRequests)
	}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := srv.Client().Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
	}()
	recv(t, g.entered)
	resp, _ := get(t, srv.Client(), srv.URL)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "yes", resp.Header.Get("X-Shed"))
	assert.ErrorIs(t, seen, adaptivelimit.ErrLimitExceeded)
	close(g.release)
	recv(t, done)

	reg2, _ := newReg(t, 1)
	g2 := newGate(http.StatusOK)
	srv2 := serve(t, reg2, "api", g2, r4chttp.ServerConfig{RejectStatus: http.StatusTooManyRequests})
	done2 := make(chan struct{})
	go func() {
		defer close(done2)
		resp, err := srv2.Client().Get(srv2.URL)
		if err == nil {
			resp.Body.Close()
		}
	}()
	recv(t, g2.entered)
	resp, body := get(t, srv2.Client(), srv2.URL)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Empty(t, body)
	close(g2.release)
	recv(t, done2)
}

// TestServerOutcomesFeedTheLimit checks each outcome against the real
// limit: a success and a 4xx are samples, a 5xx a drop (a sample too).
func TestServerOutcomesFeedTheLimit(t *testing.T) {
	for _, c := range []struct {
		status  int
		drops   int64
		windows int64
	}{
		{http.StatusOK, 0, 1},
		{http.StatusNotFound, 0, 1},
		{http.StatusInternalServerError, 1, 1},
		{http.StatusServiceUnavailable, 1, 1},
	} {
		t.Run(http.StatusText(c.status), func(t *testing.T) {
			reg, clk := newReg(t, 4)
			srv := serve(t, reg, "api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				clk.Advance(time.Millisecond) // ends the window at this sample
				w.WriteHeader(c.status)
			}), r4chttp.ServerConfig{})
			resp, _ := get(t, srv.Client(), srv.URL)
			assert.Equal(t, c.status, resp.StatusCode)
			eventually(t, func() bool { return snapshot(t, reg, "api").InFlight == 0 }, "the slot is freed")
			s := snapshot(t, reg, "api")
			assert.Equal(t, c.drops, s.Drops)
			assert.Equal(t, c.windows, s.Windows)
			assert.Equal(t, time.Millisecond, s.WindowLatency, "the latency runs to the handler's return, on the registry's clock")
		})
	}
}

func TestServerDropIsConfigurable(t *testing.T) {
	reg, clk := newReg(t, 4)
	srv := serve(t, reg, "api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		clk.Advance(time.Millisecond)
		w.WriteHeader(http.StatusNotImplemented)
	}), r4chttp.ServerConfig{Drop: func(s int) bool { return s == http.StatusServiceUnavailable }})
	resp, _ := get(t, srv.Client(), srv.URL)
	assert.Equal(t, http.StatusNotImplemented, resp.StatusCode)
	eventually(t, func() bool { return snapshot(t, reg, "api").InFlight == 0 }, "the slot is freed")
	s := snapshot(t, reg, "api")
	assert.Zero(t, s.Drops, "501 is not a drop under this Drop")
	assert.EqualValues(t, 1, s.Windows)
}

func TestServerClientDisconnectIsNoSample(t *testing.T) {
	reg, clk := newReg(t, 4)
	entered := make(chan struct{})
	returned := make(chan struct{})
	srv := serve(t, reg, "api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(returned)
		clk.Advance(time.Millisecond) // a sample now would end the window
		close(entered)
		<-r.Context().Done() // until the client goes away
		w.WriteHeader(http.StatusInternalServerError)
	}), r4chttp.ServerConfig{})

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() {
		resp, err := srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	recv(t, entered)
	assert.Equal(t, 1, snapshot(t, reg, "api").InFlight)
	cancel()
	assert.ErrorIs(t, recv(t, errc), context.Canceled)
	recv(t, returned)
	eventually(t, func() bool { return snapshot(t, reg, "api").InFlight == 0 }, "the slot is freed")
	s := snapshot(t, reg, "api")
	assert.Zero(t, s.Windows, "no sample: the window did not end")
	assert.Zero(t, s.Drops, "the 500 written to nobody is no drop")
}

func TestServerStreamingHoldsItsSlotUntilTheHandlerReturns(t *testing.T) {
	reg, _ := newReg(t, 4)
	next := make(chan struct{})
	srv := serve(t, reg, "api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher)
		if !ok {
			http.Error(w, "no flusher", http.StatusInternalServerError)
			return
		}
		for i := range 3 {
			_, _ = io.WriteString(w, "chunk"+string(rune('0'+i))+"\n")
			f.Flush()
			<-next
		}
	}), r4chttp.ServerConfig{})

	resp, err := srv.Client().Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	for i := range 3 {
		line, err := rd.ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, "chunk"+string(rune('0'+i))+"\n", line, "each chunk arrives as it is flushed")
		assert.Equal(t, 1, snapshot(t, reg, "api").InFlight, "the stream holds its slot")
		next <- struct{}{}
	}
	_, err = rd.ReadString('\n')
	assert.ErrorIs(t, err, io.EOF)
	eventually(t, func() bool { return snapshot(t, reg, "api").InFlight == 0 }, "the slot is freed when the handler returns")
}

func TestServerHijackAndResponseControllerPassThrough(t *testing.T) {
	reg, _ := newReg(t, 4)
	srv := serve(t, reg, "api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Time{}); err != nil {
			http.Error(w, "deadline: "+err.Error(), http.StatusInternalServerError)
			return
		}
		if err := rc.EnableFullDuplex(); err != nil {
			http.Error(w, "duplex: "+err.Error(), http.StatusInternalServerError)
			return
		}
		conn, brw, err := rc.Hijack()
		if err != nil {
			http.Error(w, "hijack: "+err.Error(), http.StatusInternalServerError)
			return
		}
		defer conn.Close()
		_, _ = brw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nhijacked")
		_ = brw.Flush()
	}), r4chttp.ServerConfig{})

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "hijacked", readAll(t, resp))
	resp.Body.Close()
	eventually(t, func() bool { return snapshot(t, reg, "api").InFlight == 0 }, "the slot is freed")
}

func TestServerWriterKeepsInterfaces(t *testing.T) {
	reg, _ := newReg(t, 4)
	p, err := r4chttp.NewServerPipeline(reg, "api")
	require.NoError(t, err)
	var flusher, hijacker, readerFrom bool
	var unwrapped http.ResponseWriter
	rec := httptest.NewRecorder()
	hd, err := r4chttp.NewHandler(p, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, flusher = w.(http.Flusher)
		_, hijacker = w.(http.Hijacker)
		_, readerFrom = w.(io.ReaderFrom)
		if u, ok := w.(interface{ Unwrap() http.ResponseWriter }); ok {
			unwrapped = u.Unwrap()
		}
		n, err := io.Copy(w, strings.NewReader("copied"))
		if err != nil || n != 6 {
			panic("copy")
		}
		_, _, err = http.NewResponseController(w).Hijack()
		if !errors.Is(err, http.ErrNotSupported) {
			panic("a recorder cannot be hijacked")
		}
	}), r4chttp.ServerConfig{})
	require.NoError(t, err)
	hd.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.True(t, flusher)
	assert.True(t, hijacker)
	assert.True(t, readerFrom)
	assert.Same(t, rec, unwrapped)
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "copied", rec.Body.String())
}

func TestServerPriorityFromHeaderOrFunc(t *testing.T) {
	reg, _ := newReg(t, 4)
	var got atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(int32(adaptivelimit.PriorityFrom(r.Context())))
	})
	srv := serve(t, reg, "api", h, r4chttp.ServerConfig{PriorityHeader: "x-priority"})
	for _, c := range []struct {
		v    string
		want adaptivelimit.Priority
	}{{"low", adaptivelimit.PriorityLow}, {"HIGH", adaptivelimit.PriorityHigh}, {"-3", adaptivelimit.PriorityLow},
		{"7", adaptivelimit.PriorityHigh}, {"normal", adaptivelimit.PriorityNormal}, {"bogus", adaptivelimit.PriorityNormal}} {
		get(t, srv.Client(), srv.URL, "X-Priority", c.v)
		assert.Equal(t, c.want, adaptivelimit.Priority(got.Load()), c.v)
	}

	reg2, _ := newReg(t, 4)
	srv2 := serve(t, reg2, "api", h, r4chttp.ServerConfig{PriorityHeader: "X-Priority", Priority: func(r *http.Request) adaptivelimit.Priority {
		if strings.HasPrefix(r.URL.Path, "/batch") {
			return adaptivelimit.PriorityLow
		}
		return adaptivelimit.PriorityHigh
	}})
	get(t, srv2.Client(), srv2.URL+"/batch/1", "X-Priority", "high")
	assert.Equal(t, adaptivelimit.PriorityLow, adaptivelimit.Priority(got.Load()), "the func wins over the header")
	get(t, srv2.Client(), srv2.URL+"/live")
	assert.Equal(t, adaptivelimit.PriorityHigh, adaptivelimit.Priority(got.Load()))
}

func TestServerLowPriorityIsShedFirst(t *testing.T) {
	reg, _ := newReg(t, 2)
	g := newGate(http.StatusOK)
	srv := serve(t, reg, "api", g, r4chttp.ServerConfig{PriorityHeader: "X-Priority"},
		func(b *pipeline.Builder[int]) {
			b.AdaptiveLimit(func(c *adaptivelimit.Config) { c.LowPriorityShare = 0.5 })
		})
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := srv.Client().Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
	}()
	recv(t, g.entered)
	resp, _ := get(t, srv.Client(), srv.URL, "X-Priority", "low")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "low priority may use one slot of two, taken")
	high := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("X-Priority", "high")
		resp, err := srv.Client().Do(req)
		if err != nil {
			high <- 0
			return
		}
		resp.Body.Close()
		high <- resp.StatusCode
	}()
	recv(t, g.entered) // high priority takes the second slot
	assert.Equal(t, 2, snapshot(t, reg, "api").InFlight)
	close(g.release)
	assert.Equal(t, http.StatusOK, recv(t, high))
	recv(t, done)
}

func TestServerBypass(t *testing.T) {
	reg, _ := newReg(t, 1)
	g := newGate(http.StatusOK)
	mux := http.NewServeMux()
	mux.Handle("/work", g)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })
	srv := serve(t, reg, "api", mux, r4chttp.ServerConfig{Bypass: func(r *http.Request) bool { return r.URL.Path == "/healthz" }})
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := srv.Client().Get(srv.URL + "/work")
		if err == nil {
			resp.Body.Close()
		}
	}()
	recv(t, g.entered)
	resp, body := get(t, srv.Client(), srv.URL+"/healthz")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a health check passes a full limit")
	assert.Equal(t, "ok", body)
	resp, _ = get(t, srv.Client(), srv.URL+"/work")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	close(g.release)
	recv(t, done)
}

func TestServerTimeoutIsADrop(t *testing.T) {
	for _, cooperative := range []bool{true, false} {
		t.Run(map[bool]string{true: "cooperative", false: "detached"}[cooperative], func(t *testing.T) {
			reg, clk := newReg(t, 4)
			entered := make(chan struct{})
			var afterDeadline atomic.Bool
			srv := serve(t, reg, "api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				close(entered)
				<-r.Context().Done() // the pipeline's deadline
				afterDeadline.Store(true)
			}), r4chttp.ServerConfig{TimeoutStatus: http.StatusGatewayTimeout}, func(b *pipeline.Builder[int]) {
				b.Timeout(func(c *timeout.Config) {
					c.Timeout = 2 * time.Second
					c.Cooperative = cooperative
					if !cooperative {
						c.SetZero("cooperative")
					}
				})
			})
			type res struct {
				status int
				err    error
			}
			ch := make(chan res, 1)
			go func() {
				resp, err := srv.Client().Get(srv.URL)
				if err != nil {
					ch <- res{err: err}
					return
				}
				resp.Body.Close()
				ch <- res{status: resp.StatusCode}
			}()
			recv(t, entered)
			clk.Advance(2 * time.Second)
			r := recv(t, ch)
			require.NoError(t, r.err)
			assert.Equal(t, http.StatusGatewayTimeout, r.status)
			assert.True(t, afterDeadline.Load(), "the handler returned before the answer went out")
			eventually(t, func() bool { return snapshot(t, reg, "api").InFlight == 0 }, "the slot is freed")
			assert.EqualValues(t, 1, snapshot(t, reg, "api").Drops)
		})
	}
}

func TestServerFallbackStatus(t *testing.T) {
	reg, _ := newReg(t, 1)
	g := newGate(http.StatusOK)
	p, err := pipeline.NewBuilder[int](reg, "api").AdaptiveLimit(nil).
		Fallback(func(c *fallback.Config) { c.Value = http.StatusTeapot }).Build()
	require.NoError(t, err)
	hd, err := r4chttp.NewHandler(p, g, r4chttp.ServerConfig{})
	require.NoError(t, err)
	srv := httptest.NewServer(hd)
	defer srv.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := srv.Client().Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
	}()
	recv(t, g.entered)
	resp, _ := get(t, srv.Client(), srv.URL)
	assert.Equal(t, http.StatusTeapot, resp.StatusCode, "the fallback's value is the status")
	close(g.release)
	recv(t, done)
}

func TestNewHandlerErrors(t *testing.T) {
	reg, _ := newReg(t, 4)
	p, err := r4chttp.NewServerPipeline(reg, "api")
	require.NoError(t, err)
	h := http.NotFoundHandler()
	withRetry, err := pipeline.NewBuilder[int](reg, "retrying").Retry(nil).AdaptiveLimit(nil).Build()
	require.NoError(t, err)

	for _, c := range []struct {
		name string
		p    *pipeline.Pipeline[int]
		h    http.Handler
		cfg  r4chttp.ServerConfig
		code string
		msg  string
	}{
		{"nil pipeline", nil, h, r4chttp.ServerConfig{}, r4c.CodeBuilder, "R4C-REG-005 r4chttp.NewHandler=nil: the pipeline must not be nil"},
		{"nil handler", p, nil, r4chttp.ServerConfig{}, r4c.CodeBuilder, "R4C-REG-005 r4chttp.NewHandler=nil: the handler must not be nil"},
		{"2xx reject", p, h, r4chttp.ServerConfig{RejectStatus: 200}, r4c.CodeOutOfRange,
			"R4C-ATR-005 r4chttp.ServerConfig.RejectStatus=200: must be an error status, in [400, 599]"},
		{"huge rate", p, h, r4chttp.ServerConfig{RateLimitStatus: 1000}, r4c.CodeOutOfRange,
			"R4C-ATR-005 r4chttp.ServerConfig.RateLimitStatus=1000: must be an error status, in [400, 599]"},
		{"timeout", p, h, r4chttp.ServerConfig{TimeoutStatus: -1}, r4c.CodeOutOfRange,
			"R4C-ATR-005 r4chttp.ServerConfig.TimeoutStatus=-1: must be an error status, in [400, 599]"},
		{"retry", withRetry, h, r4chttp.ServerConfig{}, r4c.CodeCombination,
			"R4C-ATR-010 r4chttp.NewHandler=retrying.retry: a server pipeline must not have a retry or a hedge: a handler writes its response once"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hd, err := r4chttp.NewHandler(c.p, c.h, c.cfg)
			assert.Nil(t, hd)
			var ce *r4c.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, c.code, ce.Code)
			assert.ErrorIs(t, err, r4c.ErrConfig)
			assert.Equal(t, c.msg, err.Error())
		})
	}
	mw, err := r4chttp.Middleware(p, r4chttp.ServerConfig{RejectStatus: 302})
	assert.Nil(t, mw)
	assert.ErrorIs(t, err, r4c.ErrConfig)
}

func TestMiddleware(t *testing.T) {
	reg, _ := newReg(t, 4)
	p, err := r4chttp.NewServerPipeline(reg, "api")
	require.NoError(t, err)
	mw, err := r4chttp.Middleware(p, r4chttp.ServerConfig{})
	require.NoError(t, err)
	srv := httptest.NewServer(mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hi") })))
	defer srv.Close()
	resp, body := get(t, srv.Client(), srv.URL)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "hi", body)
}

func TestParsePriority(t *testing.T) {
	for in, want := range map[string]adaptivelimit.Priority{
		"low": adaptivelimit.PriorityLow, " Low ": adaptivelimit.PriorityLow, "high": adaptivelimit.PriorityHigh,
		"normal": adaptivelimit.PriorityNormal, "": adaptivelimit.PriorityNormal, "0": adaptivelimit.PriorityNormal,
		"-1": adaptivelimit.PriorityLow, "99999999999999999999": adaptivelimit.PriorityNormal, "2": adaptivelimit.PriorityHigh,
	} {
		assert.Equal(t, want, r4chttp.ParsePriority(in), "%q", in)
	}
}

func TestServerHandlerPanicFreesTheSlot(t *testing.T) {
	reg, _ := newReg(t, 1)
	srv := serve(t, reg, "api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/panic" {
			panic(http.ErrAbortHandler) // net/http recovers it, quietly
		}
		_, _ = io.WriteString(w, "ok")
	}), r4chttp.ServerConfig{})
	_, err := srv.Client().Get(srv.URL + "/panic")
	require.Error(t, err, "the connection is aborted")
	eventually(t, func() bool { return snapshot(t, reg, "api").InFlight == 0 }, "the slot is freed")
	resp, body := get(t, srv.Client(), srv.URL)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the only slot is free again")
	assert.Equal(t, "ok", body)
}
