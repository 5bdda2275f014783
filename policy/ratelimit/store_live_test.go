package ratelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// grantAll is a store that grants every permit.
type grantAll struct{}

func (grantAll) Reserve(context.Context, string, ratelimit.StoreRequest) (ratelimit.Reservation, error) {
	return ratelimit.Reservation{Permits: 1}, nil
}

func (grantAll) Release(context.Context, string, ratelimit.StoreRequest, int) error { return nil }

// With a store, the rate is shared by every process: a setter refuses a new
// limit, period or burst with ClassNotLive and changes nothing; maxWait
// stays live.
func TestStoreRateIsNotLive(t *testing.T) {
	clk := clocktest.NewManualClock()
	l, err := ratelimit.New(ratelimit.Config{Limit: 10, Period: time.Second, Store: grantAll{}}, policy.Env{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	h := l.Handle()
	for name, set := range map[string]func() error{
		"limit":  func() error { return h.SetLimit(20) },
		"period": func() error { return h.SetRate(10, 2*time.Second) },
		"burst":  func() error { return h.SetBurst(3) },
	} {
		err := set()
		var fe *policy.FieldError
		if !errors.As(err, &fe) || fe.Class != policy.ClassNotLive || fe.Key != name {
			t.Fatalf("%s: got %v, want a ClassNotLive error on %s", name, err, name)
		}
	}
	if s := h.Snapshot(); s.Limit != 10 || s.Period != time.Second || s.Burst != 10 {
		t.Fatalf("snapshot changed: %+v", s)
	}
	if err := h.SetMaxWait(time.Second); err != nil {
		t.Fatalf("SetMaxWait: %v", err)
	}
	if got := h.Config().MaxWait; got != time.Second {
		t.Fatalf("MaxWait = %v, want 1s", got)
	}
}
