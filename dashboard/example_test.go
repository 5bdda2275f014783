package dashboard_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/dashboard"
	"github.com/resilience4cata/r4c/pipeline"
)

// Mount the dashboard under a path of its own; the page polls data there.
func ExampleNew() {
	reg, _ := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()))
	_, _ = pipeline.NewBuilder[string](reg, "search").AdaptiveLimit(nil).Build()
	d, err := dashboard.New(reg, dashboard.WithTitle("checkout"))
	if err != nil {
		panic(err)
	}
	// In a service, also start go d.Run(ctx): it samples every second,
	// watched or not, until ctx is done.

	mux := http.NewServeMux()
	mux.Handle("/r4c/", http.StripPrefix("/r4c", d))
	srv := httptest.NewServer(mux) // on loopback
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/r4c/data")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Header.Get("Content-Type"))
	fmt.Println(strings.Contains(string(body), `"adaptive_limits":[{"id":"search","algorithm":"gradient2"`))
	// Output:
	// application/json
	// true
}
