package r4chttp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
	"github.com/resilience4cata/r4c/r4chttp"
)

// backend is a real server on loopback that answers each request with the
// next of its replies, and records what it got.
type backend struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []string
	replies []func(w http.ResponseWriter, r *http.Request)
	hits    atomic.Int32
	conns   atomic.Int32
}

func newBackend(t *testing.T, replies ...func(w http.ResponseWriter, r *http.Request)) *backend {
	t.Helper()
	b := &backend{replies: replies}
	b.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		i := len(b.bodies)
		b.bodies = append(b.bodies, string(body))
		b.mu.Unlock()
		b.hits.Add(1)
		b.replies[min(i, len(b.replies)-1)](w, r)
	}))
	b.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			b.conns.Add(1)
		}
	}
	b.Start()
	t.Cleanup(b.Close)
	return b
}

func (b *backend) got() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.bodies...)
}

func status(code int, hdr ...string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, http.StatusText(code))
	}
}

// tracking is a base transport that records every response body it
// hands out: whether it was read to its end and closed.
type tracking struct {
	base   http.RoundTripper
	mu     sync.Mutex
	bodies []*trackedBody
}

type trackedBody struct {
	rc     io.ReadCloser
	eof    atomic.Bool
	closed atomic.Bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.eof.Store(true)
	}
	return n, err
}

func (b *trackedBody) Close() error { b.closed.Store(true); return b.rc.Close() }

func (tr *tracking) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := tr.base.RoundTrip(r)
	if err == nil {
		b := &trackedBody{rc: resp.Body}
		resp.Body = b
		tr.mu.Lock()
		tr.bodies = append(tr.bodies, b)
		tr.mu.Unlock()
	}
	return resp, err
}

func (tr *tracking) all() []*trackedBody {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]*trackedBody(nil), tr.bodies...)
}

// client returns an http.Client over a Transport through p, on clk, with
// a tracking base transport it closes at the end of the test.
func client(t *testing.T, p *pipeline.Pipeline[*http.Response], clk policy.Clock, cfg ...r4chttp.ClientConfig) (*http.Client, *tracking) {
	t.Helper()
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	tr := &tracking{base: base}
	var c r4chttp.ClientConfig
	if len(cfg) > 0 {
		c = cfg[0]
	}
	c.Base, c.Clock = tr, clk
	rt, err := r4chttp.NewTransport(p, c)
	require.NoError(t, err)
	return &http.Client{Transport: rt}, tr
}

// noWait makes the retries of the recommended pipeline immediate, unless
// a response asks for a wait.
func noWait(b *pipeline.Builder[*http.Response]) {
	b.Retry(func(c *retry.Config) { c.SetZero("wait") })
}

func TestClientReplaysTheBody(t *testing.T) {
	reg, clk := newReg(t, 10)
	be := newBackend(t, status(http.StatusServiceUnavailable), status(http.StatusBadGateway), status(http.StatusOK))
	p, err := r4chttp.NewClientPipeline(reg, "be", noWait)
	require.NoError(t, err)
	c, tr := client(t, p, clk)

	req, err := http.NewRequest(http.MethodPut, be.URL, strings.NewReader("the payload"))
	require.NoError(t, err)
	resp, err := c.Do(req)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "OK", readAll(t, resp))
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, []string{"the payload", "the payload", "the payload"}, be.got(), "every attempt sends the whole body")

	bodies := tr.all()
	require.Len(t, bodies, 3)
	for i, b := range bodies {
		assert.True(t, b.eof.Load(), "body %d read to its end", i)
		assert.True(t, b.closed.Load(), "body %d closed", i)
	}
	assert.EqualValues(t, 1, be.conns.Load(), "drained responses leave their connection for the next attempt")
}

func TestClientRefusesToReplayABodyWithoutGetBody(t *testing.T) {
	reg, clk := newReg(t, 10)
	be := newBackend(t, status(http.StatusServiceUnavailable), status(http.StatusOK))
	p, err := r4chttp.NewClientPipeline(reg, "be", noWait)
	require.NoError(t, err)
	c, _ := client(t, p, clk)

	req, err := http.NewRequest(http.MethodPut, be.URL, io.NopCloser(strings.NewReader("once only")))
	require.NoError(t, err)
	require.Nil(t, req.GetBody)
	resp, err := c.Do(req)
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "the recommended retry gives up at once and returns the response")
	assert.Equal(t, "Service Unavailable", readAll(t, resp), "the failure's body still reads in full")
	resp.Body.Close()
	assert.Equal(t, []string{"once only"}, be.got())
	r, _ := reg.Retry("be")
	assert.EqualValues(t, 0, r.Snapshot().Retries)
}

func TestClientNeverSendsAnUnreplayableBodyTwice(t *testing.T) {
	reg, clk := newReg(t, 10)
	be := newBackend(t, status(http.StatusServiceUnavailable), status(http.StatusOK))
	// A pipeline built by hand, whose retry does not know NotRetryable.
	p, err := pipeline.NewBuilder[*http.Response](reg, "hand").
		Retry(func(c *retry.Config) { c.SetZero("wait") }).Build()
	require.NoError(t, err)
	c, tr := client(t, p, clk)

	req, err := http.NewRequest(http.MethodPut, be.URL, io.NopCloser(strings.NewReader("once only")))
	require.NoError(t, err)
	resp, err := c.Do(req)
	assert.Nil(t, resp)
	require.ErrorIs(t, err, r4chttp.ErrBodyNotReplayable)
	assert.ErrorIs(t, err, retry.ErrExhausted)
	assert.Contains(t, err.Error(), "request body cannot be replayed (set Request.GetBody)")
	assert.Equal(t, []string{"once only"}, be.got(), "the later attempts were refused unsent")
	for _, b := range tr.all() {
		assert.True(t, b.closed.Load(), "the discarded 503 is closed")
	}
}

// big is a 2 MiB body of a known pattern.
var big = bytes.Repeat([]byte("0123456789abcdef"), 2<<20/16)

func TestClientBodyReadsInFullAfterThePipelineReturns(t *testing.T) {
	for _, cooperative := range []bool{true, false} {
		t.Run(map[bool]string{true: "cooperative", false: "detached"}[cooperative], func(t *testing.T) {
			reg, clk := newReg(t, 10)
			be := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
				for i := 0; i < len(big); i += 64 << 10 {
					_, _ = w.Write(big[i : i+64<<10])
					w.(http.Flusher).Flush()
				}
			})
			p, err := pipeline.NewBuilder[*http.Response](reg, "be").
				Retry(nil).AdaptiveLimit(nil).
				Timeout(func(c *timeout.Config) {
					c.Timeout = 10 * time.Second
					c.Cooperative = cooperative
					if !cooperative {
						c.SetZero("cooperative")
					}
				}).Build()
			require.NoError(t, err)
			c, _ := client(t, p, clk)
			resp, err := c.Get(be.URL)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err, "the attempt's ctx lives until the body is closed")
			assert.Equal(t, len(big), len(b))
			assert.True(t, bytes.Equal(big, b))
		})
	}
}

func TestClientBodyStillHasTheTimeoutsDeadline(t *testing.T) {
	reg, clk := newReg(t, 10)
	more := make(chan struct{})
	be := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "head")
		w.(http.Flusher).Flush()
		select {
		case <-more:
		case <-r.Context().Done():
		}
	})
	defer close(more)
	p, err := r4chttp.NewClientPipeline(reg, "be", func(b *pipeline.Builder[*http.Response]) {
		b.Timeout(func(c *timeout.Config) { c.Timeout = 3 * time.Second })
	})
	require.NoError(t, err)
	c, _ := client(t, p, clk)
	resp, err := c.Get(be.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	buf := make([]byte, 4)
	_, err = io.ReadFull(resp.Body, buf)
	require.NoError(t, err)
	assert.Equal(t, "head", string(buf))
	assert.Zero(t, snapshot(t, reg, "be").InFlight, "the slot was freed at the headers")
	clk.Advance(3 * time.Second)
	_, err = io.ReadAll(resp.Body)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the rest of the body is bounded by the timeout's deadline")
}

func TestClientHonoursRetryAfterExactly(t *testing.T) {
	for _, form := range []string{"seconds", "http-date"} {
		t.Run(form, func(t *testing.T) {
			reg, clk := newReg(t, 10)
			var want time.Duration
			be := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
				if form == "seconds" {
					w.Header().Set("Retry-After", "3")
					want = 3 * time.Second
				} else {
					at := clk.Now().Add(5 * time.Second).Truncate(time.Second).Add(time.Second)
					w.Header().Set("Retry-After", at.UTC().Format(http.TimeFormat))
					want = at.Sub(clk.Now())
				}
				w.WriteHeader(http.StatusTooManyRequests)
			}, status(http.StatusOK))
			p, err := r4chttp.NewClientPipeline(reg, "be", noWait)
			require.NoError(t, err)
			c, _ := client(t, p, clk)
			retrying := make(chan events.RetryAttempt, 4)
			stop := reg.Events().Subscribe(func(e events.Event) {
				if a, ok := e.(events.RetryAttempt); ok {
					retrying <- a
				}
			})
			defer stop()

			type res struct {
				resp *http.Response
				err  error
			}
			ch := make(chan res, 1)
			go func() {
				resp, err := c.Get(be.URL)
				ch <- res{resp, err}
			}()
			ev := recv(t, retrying)
			assert.Equal(t, want, ev.Wait, "the retry waits what the server asked for")
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			require.NoError(t, clk.BlockUntil(ctx, 1), "the retry waits")
			assert.Equal(t, 1, clk.Pending(), "the attempt's deadline went with its body, read ahead")
			assert.EqualValues(t, 1, be.hits.Load())
			clk.Advance(want - time.Nanosecond)
			assert.Equal(t, 1, clk.Pending(), "still waiting, a nanosecond before the wait the server asked for")
			assert.EqualValues(t, 1, be.hits.Load())
			clk.Advance(time.Nanosecond)
			r := recv(t, ch)
			require.NoError(t, r.err)
			assert.Equal(t, http.StatusOK, r.resp.StatusCode)
			r.resp.Body.Close()
			assert.EqualValues(t, 2, be.hits.Load())
			assert.EqualValues(t, 1, snapshot(t, reg, "be").Drops, "a 429 is a drop")
		})
	}
}

func TestClientStatusesFeedThePolicies(t *testing.T) {
	for _, c := range []struct {
		status   int
		failure  bool
		drop     bool
		failures int
	}{
		{http.StatusOK, false, false, 0},
		{http.StatusNotFound, false, false, 0},
		{http.StatusInternalServerError, true, false, 1},
		{http.StatusServiceUnavailable, true, true, 1},
		{http.StatusTooManyRequests, true, true, 1},
	} {
		t.Run(http.StatusText(c.status), func(t *testing.T) {
			reg, clk := newReg(t, 10)
			be := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
				clk.Advance(time.Millisecond)
				status(c.status)(w, r)
			})
			p, err := pipeline.NewBuilder[*http.Response](reg, "be").
				Breaker(nil).
				AdaptiveLimit(func(c *adaptivelimit.Config) { c.DropIf = r4chttp.IsDrop }).Build()
			require.NoError(t, err)
			cl, _ := client(t, p, clk)
			resp, err := cl.Get(be.URL)
			require.NoError(t, err, "a failure status is still a response")
			assert.Equal(t, c.status, resp.StatusCode)
			assert.Equal(t, http.StatusText(c.status), readAll(t, resp))
			resp.Body.Close()

			s := snapshot(t, reg, "be")
			if c.drop {
				assert.EqualValues(t, 1, s.Drops)
			} else {
				assert.Zero(t, s.Drops)
			}
			if c.failure && !c.drop {
				assert.Zero(t, s.Windows, "a failure that is no drop is no sample")
			} else {
				assert.EqualValues(t, 1, s.Windows)
			}
			bh, err := reg.Breaker("be")
			require.NoError(t, err)
			assert.Equal(t, c.failures, bh.Snapshot().Failures)
		})
	}
}

func TestClientFailureAndDropAreConfigurable(t *testing.T) {
	reg, clk := newReg(t, 10)
	be := newBackend(t, status(http.StatusConflict), status(http.StatusOK))
	p, err := r4chttp.NewClientPipeline(reg, "be", noWait)
	require.NoError(t, err)
	c, _ := client(t, p, clk, r4chttp.ClientConfig{
		Failure: func(r *http.Response) bool { return r.StatusCode == http.StatusConflict },
		Drop:    func(r *http.Response) bool { return r.StatusCode == http.StatusConflict },
	})
	resp, err := c.Get(be.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the 409 was retried")
	assert.EqualValues(t, 1, snapshot(t, reg, "be").Drops)
}

func TestClientLatencyRunsToTheHeaders(t *testing.T) {
	reg, clk := newReg(t, 10)
	rest := make(chan struct{})
	be := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		clk.Advance(2 * time.Millisecond)
		_, _ = io.WriteString(w, "first")
		w.(http.Flusher).Flush()
		<-rest
		_, _ = io.WriteString(w, " second")
	})
	p, err := r4chttp.NewClientPipeline(reg, "be")
	require.NoError(t, err)
	c, _ := client(t, p, clk)
	resp, err := c.Get(be.URL)
	require.NoError(t, err)
	s := snapshot(t, reg, "be")
	assert.Zero(t, s.InFlight, "the slot is free once the headers are in")
	assert.Equal(t, 2*time.Millisecond, s.WindowLatency)
	clk.Advance(500 * time.Millisecond) // reading the body takes long (within the 1s timeout): the sample does not change
	close(rest)
	assert.Equal(t, "first second", readAll(t, resp))
	resp.Body.Close()
	assert.Equal(t, 2*time.Millisecond, snapshot(t, reg, "be").WindowLatency)
}

// hedged builds a pipeline with a hedge after 100ms.
func hedged(t *testing.T, reg *r4c.Registry) *pipeline.Pipeline[*http.Response] {
	t.Helper()
	p, err := r4chttp.NewClientPipeline(reg, "be", noWait, func(b *pipeline.Builder[*http.Response]) {
		b.Hedge(func(c *hedge.Config) {
			c.Delay = 100 * time.Millisecond
			c.MaxHedged = 2 // a refused hedge then shows in RejectionStops
		})
	})
	require.NoError(t, err)
	return p
}

func TestClientHedgesIdempotentRequestsAndClosesTheLoser(t *testing.T) {
	reg, clk := newReg(t, 10)
	slow := make(chan struct{})
	be := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		<-slow
		_, _ = io.WriteString(w, "slow")
	}, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "fast") })
	c, tr := client(t, hedged(t, reg), clk)

	type res struct {
		body string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		resp, err := c.Get(be.URL)
		if err != nil {
			ch <- res{err: err}
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		ch <- res{string(b), err}
	}()
	eventually(t, func() bool { return be.hits.Load() == 1 }, "the first attempt reaches the server")
	clk.Advance(100 * time.Millisecond) // the hedge's timer was armed before the first attempt started
	r := recv(t, ch)
	close(slow)
	require.NoError(t, r.err)
	assert.Equal(t, "fast", r.body)
	assert.EqualValues(t, 2, be.hits.Load())
	eventually(t, func() bool {
		for _, b := range tr.all() {
			if !b.closed.Load() {
				return false
			}
		}
		return true
	}, "the loser's response, if it came, is closed")
}

func TestClientDoesNotHedgeWhatIsNotIdempotent(t *testing.T) {
	for _, c := range []struct {
		name   string
		key    string
		hedged bool
	}{{"POST", "", false}, {"POST with an Idempotency-Key", "k1", true}} {
		t.Run(c.name, func(t *testing.T) {
			reg, clk := newReg(t, 10)
			release := make(chan struct{})
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			defer free()
			be := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
				<-release
				_, _ = io.WriteString(w, "done")
			})
			cl, _ := client(t, hedged(t, reg), clk)
			ch := make(chan error, 1)
			go func() {
				req, _ := http.NewRequest(http.MethodPost, be.URL, strings.NewReader("order"))
				if c.key != "" {
					req.Header.Set("Idempotency-Key", c.key)
				}
				resp, err := cl.Do(req)
				if err == nil {
					_, _ = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				ch <- err
			}()
			eventually(t, func() bool { return be.hits.Load() == 1 }, "the first attempt reaches the server")
			clk.Advance(100 * time.Millisecond) // the hedge's timer was armed before the first attempt started
			if c.hedged {
				eventually(t, func() bool { return be.hits.Load() == 2 }, "the hedge sends a second request")
			} else {
				h, err := reg.Hedge("be")
				require.NoError(t, err)
				eventually(t, func() bool { return h.Snapshot().RejectionStops == 1 }, "the hedged attempt was refused")
				assert.EqualValues(t, 1, h.Snapshot().HedgesStarted)
				assert.EqualValues(t, 1, be.hits.Load(), "a POST is never sent twice at once")
			}
			free()
			require.NoError(t, recv(t, ch))
		})
	}
}

func TestClientRejectionIsAnError(t *testing.T) {
	reg, clk := newReg(t, 1)
	release := make(chan struct{})
	be := newBackend(t, func(w http.ResponseWriter, r *http.Request) { <-release })
	p, err := r4chttp.NewClientPipeline(reg, "be", func(b *pipeline.Builder[*http.Response]) {
		b.Retry(func(c *retry.Config) { c.MaxAttempts = 1 })
	})
	require.NoError(t, err)
	c, _ := client(t, p, clk)
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := c.Get(be.URL)
		if err == nil {
			resp.Body.Close()
		}
	}()
	eventually(t, func() bool { return be.hits.Load() == 1 }, "the first request holds the only slot")
	for range 10 {
		_, err := c.Get(be.URL)
		require.ErrorIs(t, err, adaptivelimit.ErrLimitExceeded)
		assert.ErrorIs(t, err, policy.ErrRejected)
	}
	close(release)
	recv(t, done)
	bh, err := reg.Breaker("be")
	require.NoError(t, err)
	s := bh.Snapshot()
	assert.Equal(t, breaker.StateClosed, s.State, "the limit's rejections are not the server's failures")
	assert.Zero(t, s.Failures)
}

func TestClientRetryAbortsOnAnOpenBreaker(t *testing.T) {
	reg, clk := newReg(t, 10)
	be := newBackend(t, status(http.StatusOK))
	p, err := r4chttp.NewClientPipeline(reg, "be")
	require.NoError(t, err)
	c, _ := client(t, p, clk)
	bh, err := reg.Breaker("be")
	require.NoError(t, err)
	bh.TransitionToOpen()
	_, err = c.Get(be.URL)
	require.ErrorIs(t, err, breaker.ErrOpen)
	assert.NotErrorIs(t, err, retry.ErrExhausted, "no retry of an open breaker")
	assert.Zero(t, be.hits.Load())
	assert.Zero(t, clk.Pending(), "no wait")
}

func TestClientNonIdempotentTransportErrorIsNotRetried(t *testing.T) {
	reg, clk := newReg(t, 10)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var accepted atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_, _ = io.CopyN(io.Discard, conn, 10)
			conn.Close() // the request reached the server, which failed
		}
	}()
	defer func() { ln.Close(); <-done }()
	p, err := r4chttp.NewClientPipeline(reg, "be", noWait)
	require.NoError(t, err)
	c, _ := client(t, p, clk)

	_, err = c.Post("http://"+ln.Addr().String(), "text/plain", strings.NewReader("pay 10"))
	require.Error(t, err)
	assert.True(t, r4chttp.NotRetryable(err))
	assert.EqualValues(t, 1, accepted.Load(), "a POST that may have been processed is not sent again")

	_, err = c.Get("http://" + ln.Addr().String())
	require.ErrorIs(t, err, retry.ErrExhausted, "a GET is")
	assert.EqualValues(t, 4, accepted.Load())
}

func TestNewTransportErrors(t *testing.T) {
	reg, _ := newReg(t, 10)
	p, err := r4chttp.NewClientPipeline(reg, "be")
	require.NoError(t, err)
	tr, err := r4chttp.NewTransport(nil, r4chttp.ClientConfig{})
	assert.Nil(t, tr)
	assert.EqualError(t, err, "R4C-REG-005 r4chttp.NewTransport=nil: the pipeline must not be nil")
	tr, err = r4chttp.NewTransport(p, r4chttp.ClientConfig{DrainLimit: -1})
	assert.Nil(t, tr)
	assert.EqualError(t, err, "R4C-ATR-005 r4chttp.ClientConfig.DrainLimit=-1: must not be negative")
	assert.ErrorIs(t, err, r4c.ErrConfig)
}

func TestNewClient(t *testing.T) {
	reg, _ := newReg(t, 10)
	be := newBackend(t, status(http.StatusOK))
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	c, err := r4chttp.NewClient(reg, "be", base)
	require.NoError(t, err)
	resp, _ := get(t, c, be.URL)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	_, err = r4chttp.NewClient(reg, "be", base)
	assert.ErrorIs(t, err, r4c.ErrConfig, "a second pipeline of the same name sets code-only fields of a shared instance")
}

func TestIdempotent(t *testing.T) {
	for m, want := range map[string]bool{"GET": true, "HEAD": true, "PUT": true, "DELETE": true, "OPTIONS": true,
		"TRACE": true, "": true, "POST": false, "PATCH": false} {
		r := httptest.NewRequest(m, "/", nil)
		if m == "" {
			r.Method = ""
		}
		assert.Equal(t, want, r4chttp.Idempotent(r), m)
	}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("X-Idempotency-Key", "x")
	assert.True(t, r4chttp.Idempotent(r))
}

func TestStatusError(t *testing.T) {
	e := &r4chttp.StatusError{Status: 503, Wait: 2 * time.Second}
	assert.Equal(t, "r4c: http: status 503 (retry after 2s)", e.Error())
	assert.ErrorIs(t, e, r4chttp.ErrStatus)
	assert.Equal(t, 2*time.Second, e.RetryAfter())
	assert.False(t, r4chttp.IsDrop(e), "only the Transport and the Handler mark drops")
	assert.False(t, r4chttp.IsDrop(errors.New("x")))
	assert.Equal(t, "r4c: http: status 500", (&r4chttp.StatusError{Status: 500}).Error())
	assert.Equal(t, 2*time.Second, retry.RetryAfterWait(e, 1, time.Second))
}

var _ = clocktest.NewManualClock

type idleCloser struct {
	canned http.RoundTripper
	closed atomic.Int32
}

func (c *idleCloser) RoundTrip(r *http.Request) (*http.Response, error) { return c.canned.RoundTrip(r) }
func (c *idleCloser) CloseIdleConnections()                             { c.closed.Add(1) }

func TestTransportClosesIdleConnectionsOfItsBase(t *testing.T) {
	reg, _ := newReg(t, 10)
	p, err := r4chttp.NewClientPipeline(reg, "be")
	require.NoError(t, err)
	base := &idleCloser{}
	tr, err := r4chttp.NewTransport(p, r4chttp.ClientConfig{Base: base})
	require.NoError(t, err)
	(&http.Client{Transport: tr}).CloseIdleConnections()
	assert.EqualValues(t, 1, base.closed.Load())
}

func TestClientDetachedTimeoutDiscardsTheLateResponse(t *testing.T) {
	reg, clk := newReg(t, 10)
	entered, release := make(chan struct{}), make(chan struct{})
	be := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release // answers after the caller was told it timed out
		_, _ = io.WriteString(w, "late")
	})
	p, err := pipeline.NewBuilder[*http.Response](reg, "be").AdaptiveLimit(nil).
		Timeout(func(c *timeout.Config) { c.Timeout = time.Second }).Build() // detached
	require.NoError(t, err)
	require.True(t, p.Detaches())
	c, tr := client(t, p, clk)
	errc := make(chan error, 1)
	go func() {
		resp, err := c.Get(be.URL)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	recv(t, entered)
	clk.Advance(time.Second)
	err = recv(t, errc)
	require.ErrorIs(t, err, timeout.ErrCallTimeout)
	close(release)
	eventually(t, func() bool { return snapshot(t, reg, "be").InFlight == 0 }, "the abandoned attempt ends and frees its slot")
	for _, b := range tr.all() {
		assert.True(t, b.closed.Load(), "a response that came late is closed")
	}
}

func TestClientDoesNotWaitForARetryAfterBeyondItsMax(t *testing.T) {
	reg, clk := newReg(t, 10)
	be := newBackend(t, status(http.StatusServiceUnavailable, "Retry-After", "120"), status(http.StatusOK))
	p, err := r4chttp.NewClientPipeline(reg, "be", noWait)
	require.NoError(t, err)
	c, _ := client(t, p, clk, r4chttp.ClientConfig{MaxRetryAfter: time.Minute})
	resp, err := c.Get(be.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "two minutes is more than the caller waits: the 503 comes back at once")
	assert.Equal(t, "120", resp.Header.Get("Retry-After"))
	assert.EqualValues(t, 1, be.hits.Load())
	assert.Zero(t, clk.Pending())

	_, err = r4chttp.NewTransport(p, r4chttp.ClientConfig{MaxRetryAfter: -time.Second})
	assert.EqualError(t, err, "R4C-ATR-004 r4chttp.ClientConfig.MaxRetryAfter=-1s: must not be negative")
}
