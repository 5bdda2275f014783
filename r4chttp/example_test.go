package r4chttp_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/r4chttp"
)

// A server sheds what it cannot serve: with every slot taken, a request
// is answered 503 at once, without reaching the handler.
func ExampleNewHandler() {
	reg, err := r4c.NewRegistry(
		r4c.WithClock(clocktest.NewManualClock()),
		r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.InitialLimit, c.MaxLimit = 1, 1 }),
	)
	if err != nil {
		log.Fatal(err)
	}
	p, err := r4chttp.NewServerPipeline(reg, "api")
	if err != nil {
		log.Fatal(err)
	}
	busy, release := make(chan struct{}), make(chan struct{})
	work := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(busy)
		<-release
		_, _ = io.WriteString(w, "served")
	})
	h, err := r4chttp.NewHandler(p, work, r4chttp.ServerConfig{RejectBody: "overloaded, retry later"})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	first := make(chan string)
	go func() {
		resp, err := srv.Client().Get(srv.URL)
		if err != nil {
			first <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		first <- resp.Status + " " + string(b)
	}()
	<-busy // the only slot is taken

	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, string(b))
	close(release)
	fmt.Println(<-first)
	// Output:
	// 503 Service Unavailable overloaded, retry later
	// 200 OK served
}

// A client retries a 503, honouring its Retry-After, with the body of the
// request, and returns the response that succeeded.
func ExampleNewTransport() {
	var hits atomic.Int32
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, "stored %s", body)
	}))
	defer backend.Close()

	reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	if err != nil {
		log.Fatal(err)
	}
	p, err := r4chttp.NewClientPipeline(reg, "backend", func(b *pipeline.Builder[*http.Response]) {
		b.Retry(func(c *retry.Config) { c.SetZero("wait") }) // only what Retry-After asks for
	})
	if err != nil {
		log.Fatal(err)
	}
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	t, err := r4chttp.NewTransport(p, r4chttp.ClientConfig{Base: base, Clock: reg.Clock()})
	if err != nil {
		log.Fatal(err)
	}
	client := &http.Client{Transport: t}

	// A POST is retried only after a response that says it was not
	// processed (429, 503); its body is sent again through GetBody.
	resp, err := client.Post(backend.URL, "text/plain", strings.NewReader("order 42"))
	if err != nil {
		log.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, string(b), "after", hits.Load(), "requests")
	// Output:
	// 200 OK stored order 42 after 2 requests
}
