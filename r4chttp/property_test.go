package r4chttp_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/r4chttp"
)

// TestHandlerProperty: whatever statuses a handler writes, the client gets
// each as written, the limit counts a drop exactly for each status Drop
// accepts, and no slot is left taken.
func TestHandlerProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		statuses := rapid.SliceOfN(rapid.IntRange(200, 599), 1, 50).Draw(t, "statuses")
		threshold := rapid.IntRange(400, 600).Draw(t, "dropFrom")
		reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()),
			r4c.WithAdaptiveLimitDefaults(func(c *adaptivelimit.Config) { c.Window = time.Hour }))
		if err != nil {
			t.Fatal(err)
		}
		p, err := pipeline.NewBuilder[int](reg, "api").
			AdaptiveLimit(func(c *adaptivelimit.Config) { c.DropIf = r4chttp.IsDrop }).Build()
		if err != nil {
			t.Fatal(err)
		}
		h, err := r4chttp.NewHandler(p, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s, _ := strconv.Atoi(r.URL.Query().Get("s"))
			w.WriteHeader(s)
		}), r4chttp.ServerConfig{Drop: func(s int) bool { return s >= threshold }})
		if err != nil {
			t.Fatal(err)
		}
		var drops int64
		for _, s := range statuses {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/?s="+strconv.Itoa(s), nil))
			if rec.Code != s {
				t.Fatalf("status %d, want %d", rec.Code, s)
			}
			if s >= threshold {
				drops++
			}
		}
		lim, err := reg.AdaptiveLimit("api")
		if err != nil {
			t.Fatal(err)
		}
		snap := lim.Snapshot()
		if snap.Drops != drops {
			t.Fatalf("%d drops, want %d", snap.Drops, drops)
		}
		if snap.InFlight != 0 {
			t.Fatalf("%d slots left taken", snap.InFlight)
		}
	})
}
