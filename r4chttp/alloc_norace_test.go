//go:build !race

package r4chttp_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/r4chttp"
)

type nopWriter struct {
	h      http.Header
	status int
}

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(s int)           { w.status = s }

// TestHandlerAllocations: an admitted request and a rejected one each
// allocate one record (the request's ResponseWriter), nothing else.
func TestHandlerAllocations(t *testing.T) {
	for _, c := range []struct {
		name   string
		limit  int
		status int
	}{{"admitted", 4, http.StatusNoContent}, {"rejected", 1, http.StatusServiceUnavailable}} {
		t.Run(c.name, func(t *testing.T) {
			reg, _ := newReg(t, c.limit)
			p, err := pipeline.NewBuilder[int](reg, "api").AdaptiveLimit(nil).Build()
			if err != nil {
				t.Fatal(err)
			}
			entered, release := make(chan struct{}), make(chan struct{})
			h, err := r4chttp.NewHandler(p, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/hold" {
					close(entered)
					<-release
				}
				w.WriteHeader(http.StatusNoContent)
			}), r4chttp.ServerConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if c.limit == 1 { // a request on another goroutine takes the only slot
				done := make(chan struct{})
				go func() {
					defer close(done)
					h.ServeHTTP(&nopWriter{h: http.Header{}}, httptest.NewRequest(http.MethodGet, "/hold", nil))
				}()
				<-entered
				defer func() { close(release); <-done }()
			}
			w := &nopWriter{h: http.Header{}}
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			h.ServeHTTP(w, r) // warm the pools
			per := testing.AllocsPerRun(200, func() { h.ServeHTTP(w, r) })
			if want := 1.0; per != want {
				t.Errorf("%v allocs per request, want %v", per, want)
			}
			if w.status != c.status {
				t.Errorf("status %d, want %d", w.status, c.status)
			}
		})
	}
}
