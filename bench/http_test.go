package bench_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/failsafe-go/failsafe-go"
	fsadaptive "github.com/failsafe-go/failsafe-go/adaptivelimiter"
	fsbreaker "github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	fsretry "github.com/failsafe-go/failsafe-go/retrypolicy"

	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/r4chttp"
)

// The HTTP and gRPC groups measure what each library's middleware adds to
// a call that does nothing else, in process (no network): the server
// middleware around a handler that writes a status, the client
// RoundTripper over a base transport that returns a canned response.
func init() {
	groups = append(groups,
		group{"HTTPHandler", groupHTTPHandler},
		group{"HTTPRoundTripper", groupHTTPRoundTripper},
		group{"HTTPRoundTripperRetry", groupHTTPRoundTripperRetry},
	)
}

func BenchmarkHTTPHandler(b *testing.B)           { benchVariants(b, groupHTTPHandler) }
func BenchmarkHTTPRoundTripper(b *testing.B)      { benchVariants(b, groupHTTPRoundTripper) }
func BenchmarkHTTPRoundTripperRetry(b *testing.B) { benchVariants(b, groupHTTPRoundTripperRetry) }

// okHandler answers 204 at once.
var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })

// discardWriter is a ResponseWriter that keeps nothing, reused by every
// call so that only the middleware's allocations count.
type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(s int)           { w.status = s }

func serveLoop(b *testing.B, h http.Handler) {
	w := &discardWriter{h: http.Header{}}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
	if w.status != http.StatusNoContent {
		b.Fatalf("status %d", w.status)
	}
}

// groupHTTPHandler: a server middleware with an adaptive limit, admitted.
func groupHTTPHandler(run runFunc) {
	run("bare", func(b *testing.B) { serveLoop(b, okHandler) })
	run("r4c", func(b *testing.B) {
		p, err := pipeline.NewBuilder[int](r4cRegistry(b), "h").AdaptiveLimit(adaptiveAdmitted).Build()
		if err != nil {
			b.Fatal(err)
		}
		h, err := r4chttp.NewHandler(p, okHandler, r4chttp.ServerConfig{})
		if err != nil {
			b.Fatal(err)
		}
		serveLoop(b, h)
	})
	run("failsafe", func(b *testing.B) {
		l := fsadaptive.NewBuilder[*http.Response]().WithLimits(minLimit, maxLimit, initialLimit).Build()
		serveLoop(b, failsafehttp.NewHandler(okHandler, l))
	})
}

// canned is a base transport that answers 200 with a small body at once.
type canned struct{}

func (canned) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("ok")),
		Request: r, ContentLength: 2}, nil
}

func tripLoop(b *testing.B, rt http.RoundTripper) {
	r := httptest.NewRequest(http.MethodGet, "http://backend/", nil)
	r.RequestURI = ""
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := rt.RoundTrip(r)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// groupHTTPRoundTripper: a client RoundTripper with an adaptive limit.
func groupHTTPRoundTripper(run runFunc) {
	run("bare", func(b *testing.B) { tripLoop(b, canned{}) })
	run("r4c", func(b *testing.B) {
		p, err := pipeline.NewBuilder[*http.Response](r4cRegistry(b), "c").AdaptiveLimit(adaptiveAdmitted).Build()
		if err != nil {
			b.Fatal(err)
		}
		t, err := r4chttp.NewTransport(p, r4chttp.ClientConfig{Base: canned{}})
		if err != nil {
			b.Fatal(err)
		}
		tripLoop(b, t)
	})
	run("failsafe", func(b *testing.B) {
		l := fsadaptive.NewBuilder[*http.Response]().WithLimits(minLimit, maxLimit, initialLimit).Build()
		tripLoop(b, failsafehttp.NewRoundTripper(canned{}, l))
	})
}

// groupHTTPRoundTripperRetry: retry, breaker and adaptive limit around a
// RoundTripper whose calls succeed.
func groupHTTPRoundTripperRetry(run runFunc) {
	run("r4c", func(b *testing.B) {
		p, err := pipeline.NewBuilder[*http.Response](r4cRegistry(b), "c").
			Retry(func(c *retry.Config) { c.AbortIf = r4chttp.NotRetryable }).
			Breaker(nil).
			AdaptiveLimit(func(c *adaptivelimit.Config) { adaptiveAdmitted(c); c.DropIf = r4chttp.IsDrop }).Build()
		if err != nil {
			b.Fatal(err)
		}
		t, err := r4chttp.NewTransport(p, r4chttp.ClientConfig{Base: canned{}})
		if err != nil {
			b.Fatal(err)
		}
		tripLoop(b, t)
	})
	run("failsafe", func(b *testing.B) {
		l := fsadaptive.NewBuilder[*http.Response]().WithLimits(minLimit, maxLimit, initialLimit).Build()
		var ps []failsafe.Policy[*http.Response]
		ps = append(ps, fsretry.NewBuilder[*http.Response]().WithMaxAttempts(3).Build(),
			fsbreaker.NewWithDefaults[*http.Response](), l)
		tripLoop(b, failsafehttp.NewRoundTripper(canned{}, ps...))
	})
}
