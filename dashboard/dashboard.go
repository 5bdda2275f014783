package dashboard

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/policy"
)

//go:embed page.html
var page []byte

// Defaults of a Dashboard.
const (
	DefaultInterval = time.Second
	DefaultHistory  = 300
)

// ErrNilRegistry is the error of [New] given no registry.
var ErrNilRegistry = errors.New("r4c: dashboard: nil registry")

// Dashboard is an http.Handler serving the live page of one registry. Make
// it with [New].
type Dashboard struct {
	reg      *r4c.Registry
	clock    policy.Clock
	interval time.Duration
	title    string

	mu     sync.Mutex // guards the ring
	ring   []frame    // at most history frames, oldest first once full
	next   int        // where the next frame goes once the ring is full
	filled bool
	last   int64 // monotonic reading of the last sample
	any    bool  // a sample was taken
}

var _ http.Handler = (*Dashboard)(nil)

// frame is one sample: when, and every instance's figures then.
type frame struct {
	at   time.Time
	snap r4c.Snapshot
}

// Option configures a [Dashboard].
type Option interface {
	apply(*Dashboard) error
}

type optionFunc func(*Dashboard) error

func (f optionFunc) apply(d *Dashboard) error { return f(d) }

// WithInterval sets how often a sample is taken (default 1s). It must be
// at least 10ms (else R4C-ATR-004, key dashboard.interval).
func WithInterval(d time.Duration) Option {
	return optionFunc(func(x *Dashboard) error {
		if d < 10*time.Millisecond {
			return &r4c.ConfigError{Code: r4c.CodeNegativeDuration, Key: "dashboard.interval", Value: d.String(), Rule: "must be at least 10ms"}
		}
		x.interval = d
		return nil
	})
}

// WithHistory sets how many samples the ring keeps (default 300). It must
// be between 2 and 100000 (else R4C-ATR-005, key dashboard.history).
func WithHistory(n int) Option {
	return optionFunc(func(x *Dashboard) error {
		if n < 2 || n > 100000 {
			return &r4c.ConfigError{Code: r4c.CodeOutOfRange, Key: "dashboard.history", Value: strconv.Itoa(n), Rule: "must be between 2 and 100000"}
		}
		x.ring = make([]frame, 0, n)
		return nil
	})
}

// WithTitle sets the page's title (default "r4c").
func WithTitle(title string) Option {
	return optionFunc(func(x *Dashboard) error {
		x.title = title
		return nil
	})
}

// New returns the dashboard of reg. It returns [ErrNilRegistry] for a nil
// reg and an *r4c.ConfigError (matching r4c.ErrConfig, with its code, key,
// value and rule) for an option out of range; then no dashboard.
func New(reg *r4c.Registry, opts ...Option) (*Dashboard, error) {
	if reg == nil {
		return nil, ErrNilRegistry
	}
	d := &Dashboard{reg: reg, clock: reg.Clock(), interval: DefaultInterval, title: "r4c"}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(d); err != nil {
			return nil, err
		}
	}
	if d.ring == nil {
		d.ring = make([]frame, 0, DefaultHistory)
	}
	return d, nil
}

// Interval returns how often a sample is taken.
func (d *Dashboard) Interval() time.Duration { return d.interval }

// Sample records the figures of every instance now, on the registry's
// clock. The oldest sample goes when the ring is full.
func (d *Dashboard) Sample() {
	f := frame{at: d.clock.Now(), snap: d.reg.Snapshot()}
	now := d.clock.Nanotime()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.push(f, now)
}

// push adds f, taken at the reading now. d.mu is held.
func (d *Dashboard) push(f frame, now int64) {
	d.last, d.any = now, true
	if len(d.ring) < cap(d.ring) {
		d.ring = append(d.ring, f)
		return
	}
	d.ring[d.next] = f
	d.next = (d.next + 1) % len(d.ring)
	d.filled = true
}

// frames returns the samples, oldest first. d.mu is held.
func (d *Dashboard) frames() []frame {
	if !d.filled {
		return slices.Clone(d.ring)
	}
	return append(slices.Clone(d.ring[d.next:]), d.ring[:d.next]...)
}

// Run takes a sample every Interval on the registry's clock until ctx is
// done, and returns ctx.Err(). It runs on the caller's goroutine: start it
// with go, and cancel ctx to stop it.
func (d *Dashboard) Run(ctx context.Context) error {
	for {
		d.Sample()
		if err := policy.Sleep(ctx, d.clock, d.interval); err != nil {
			return err
		}
	}
}

// ServeHTTP serves the page at "/" (and "/index.html"; "" redirects to the
// path with a trailing slash), the history
// at "/data" and the registry's snapshot at "/snapshot", for GET and HEAD;
// other paths are 404 and other methods 405.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "":
		// Mounted with StripPrefix and asked for without the trailing
		// slash: the page's relative URLs need it.
		to, _, _ := strings.Cut(r.RequestURI, "?")
		http.Redirect(w, r, to+"/", http.StatusMovedPermanently)
	case "/", "/index.html":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:")
		_, _ = w.Write(page)
	case "/data":
		writeJSON(w, d.Data())
	case "/snapshot":
		writeJSON(w, d.reg.Snapshot())
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}
