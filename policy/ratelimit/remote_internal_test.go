package ratelimit

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
)

// downStore fails every call.
type downStore struct{}

func (downStore) Reserve(context.Context, string, StoreRequest) (Reservation, error) {
	return Reservation{}, context.DeadlineExceeded
}
func (downStore) Release(context.Context, string, StoreRequest, int) error {
	return context.DeadlineExceeded
}

type keyOf struct{}

// The per-key quotas kept in the process stay bounded: idle ones (a full
// fallback bucket, no lease) are dropped once there are more than
// maxQuotas, and the busy ones are kept.
func TestQuotasStayBounded(t *testing.T) {
	clk := clocktest.NewManualClock()
	l, err := New(Config{Limit: 10, Period: time.Second, Burst: 1, Store: downStore{},
		QuotaKey: func(ctx context.Context) string { return ctx.Value(keyOf{}).(string) }}, policy.Env{Clock: clk})
	require.NoError(t, err)
	ctxOf := func(k int) context.Context { return context.WithValue(context.Background(), keyOf{}, strconv.Itoa(k)) }

	// Many keys, each used once, idle once the clock moves on.
	for k := range 3 * maxQuotas {
		require.NoError(t, l.Wait(ctxOf(k)), "key %d: its own full bucket", k)
		clk.Advance(time.Millisecond) // a key is busy for 100ms
	}
	assert.LessOrEqual(t, l.remote.nq.Load(), int64(maxQuotas))
	assert.True(t, l.Handle().Snapshot().Fallback)
	last := ctxOf(3*maxQuotas - 1)
	require.ErrorIs(t, l.Wait(last), ErrRateLimited, "a busy key is kept: its bucket is still empty")
}

// More busy keys than maxQuotas: none is dropped, and the map is scanned
// once per quarter of maxQuotas new keys, not once per key.
func TestBusyQuotasAreKept(t *testing.T) {
	clk := clocktest.NewManualClock()
	l, err := New(Config{Limit: 1, Period: time.Hour, Burst: 1, Store: downStore{},
		QuotaKey: func(ctx context.Context) string { return ctx.Value(keyOf{}).(string) }}, policy.Env{Clock: clk})
	require.NoError(t, err)
	ctxOf := func(k int) context.Context { return context.WithValue(context.Background(), keyOf{}, strconv.Itoa(k)) }
	n := maxQuotas + maxQuotas/2
	for k := range n {
		require.NoError(t, l.Wait(ctxOf(k)))
	}
	assert.Equal(t, int64(n), l.remote.nq.Load())
	assert.Equal(t, int64(n), l.remote.pruneAt.Load(), "scanned at maxQuotas keys, then at 5/4 of it: next at 6/4")
	for k := range n {
		require.ErrorIs(t, l.Wait(ctxOf(k)), ErrRateLimited, "key %d kept its state", k)
	}
}
