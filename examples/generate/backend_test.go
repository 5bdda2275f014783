package generate_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/resilience4cata/r4c/future"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// orders is an OrderClient whose asynchronous orders stay pending until
// the test completes them, and whose other calls run hooks the tests set.
type orders struct {
	mu      sync.Mutex
	pending map[string]*future.Promise[string]
	calls   []string
	place   func(ctx context.Context, order string) (string, error)
	cancel  func(ctx context.Context, order string) error
}

func newOrders() *orders { return &orders{pending: map[string]*future.Promise[string]{}} }

func (o *orders) record(call string) {
	o.mu.Lock()
	o.calls = append(o.calls, call)
	o.mu.Unlock()
}

func (o *orders) Calls() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.calls...)
}

func (o *orders) Place(ctx context.Context, order string) (string, error) {
	o.record("Place " + order)
	if o.place != nil {
		return o.place(ctx, order)
	}
	return "placed " + order, nil
}

func (o *orders) Cancel(ctx context.Context, order string) error {
	o.record("Cancel " + order)
	if o.cancel != nil {
		return o.cancel(ctx, order)
	}
	return nil
}

func (o *orders) PlaceAsync(order string) *future.Future[string] {
	o.record("PlaceAsync " + order)
	pr := future.NewPromise[string]()
	o.mu.Lock()
	o.pending[order] = pr
	o.mu.Unlock()
	return pr.Future()
}

// complete completes the pending order.
func (o *orders) complete(order, v string) {
	o.mu.Lock()
	pr := o.pending[order]
	delete(o.pending, order)
	o.mu.Unlock()
	pr.Complete(v)
}

// catalogue is a SearchClient over a fixed list of titles.
type catalogue struct{ titles []string }

var errEmptyQuery = errors.New("empty query")

func (c catalogue) Search(_ context.Context, query string) ([]string, error) {
	if query == "" {
		return nil, errEmptyQuery
	}
	var out []string
	for _, t := range c.titles {
		if strings.Contains(t, query) {
			out = append(out, t)
		}
	}
	return out, nil
}

func (c catalogue) Suggest(_ context.Context, prefix string, limit int) ([]string, bool, error) {
	var out []string
	for _, t := range c.titles {
		if strings.HasPrefix(t, prefix) {
			out = append(out, t)
		}
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// still is a delegate that allocates nothing.
type still struct{ done *future.Future[string] }

var titles = []string{"go", "gopher"}

func (still) Search(context.Context, string) ([]string, error) { return titles, nil }
func (still) Suggest(context.Context, string, int) ([]string, bool, error) {
	return titles, true, nil
}
func (still) Place(context.Context, string) (string, error) { return "placed", nil }
func (still) Cancel(context.Context, string) error          { return nil }
func (s still) PlaceAsync(string) *future.Future[string]    { return s.done }
