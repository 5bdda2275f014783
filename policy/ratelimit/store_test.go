package ratelimit_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// memStore is a Store in memory, timed by its own clock (the "server's"),
// that can be made to fail or to hang until its caller's deadline.
type memStore struct {
	clk *clocktest.ManualClock

	mu       sync.Mutex
	tat      map[string]int64
	reserves int
	releases int
	down     error // returned by every call while set
	hang     bool  // every call blocks until its ctx is done
	asked    []ratelimit.StoreRequest
	// onReserve, if set, gets the ctx of every reservation answered.
	onReserve func(context.Context)
}

func newMemStore(clk *clocktest.ManualClock) *memStore {
	return &memStore{clk: clk, tat: map[string]int64{}}
}

var errDown = errors.New("store down")

func (s *memStore) fault(ctx context.Context) error {
	s.mu.Lock()
	down, hang := s.down, s.hang
	s.mu.Unlock()
	if hang {
		<-ctx.Done()
		return ctx.Err()
	}
	return down
}

func (s *memStore) Reserve(ctx context.Context, key string, r ratelimit.StoreRequest) (ratelimit.Reservation, error) {
	if err := s.fault(ctx); err != nil {
		return ratelimit.Reservation{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reserves++
	s.asked = append(s.asked, r)
	if s.onReserve != nil {
		s.onReserve(ctx)
	}
	now := s.clk.Nanotime()
	iv, tol := int64(r.Interval), int64(r.Burst-1)*int64(r.Interval)
	tat, ok := s.tat[key]
	if !ok || tat < now {
		tat = now
	}
	wait := tat - now - tol
	if wait <= 0 {
		k := min(int((now+tol-tat)/iv)+1, r.Permits)
		s.tat[key] = tat + int64(k)*iv
		return ratelimit.Reservation{Permits: k}, nil
	}
	if wait <= int64(r.MaxWait) {
		s.tat[key] = tat + iv
		return ratelimit.Reservation{Permits: 1, Wait: time.Duration(wait)}, nil
	}
	return ratelimit.Reservation{RetryAfter: time.Duration(wait)}, nil
}

func (s *memStore) Release(ctx context.Context, key string, r ratelimit.StoreRequest, n int) error {
	if err := s.fault(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releases++
	now := s.clk.Nanotime()
	if tat, ok := s.tat[key]; ok {
		s.tat[key] = max(tat-int64(n)*int64(r.Interval), now)
	}
	return nil
}

func (s *memStore) set(down error, hang bool) {
	s.mu.Lock()
	s.down, s.hang = down, hang
	s.mu.Unlock()
}

func (s *memStore) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reserves
}

type storeFixture struct {
	*fixture
	st *memStore
}

func newStoreFixture(t *testing.T, cfg ratelimit.Config) *storeFixture {
	t.Helper()
	clk := clocktest.NewManualClock()
	st := newMemStore(clk)
	cfg.Store = st
	bus := &events.Bus{}
	rec := &recorder{}
	t.Cleanup(bus.Subscribe(rec.Listen))
	l, err := ratelimit.New(cfg, policy.Env{Clock: clk, Events: bus, Instance: "api"})
	require.NoError(t, err)
	return &storeFixture{&fixture{clk: clk, l: l, h: ratelimit.NewHandle(l), st: ratelimit.Stage[string](l), rec: rec}, st}
}

func count(l *ratelimit.Limiter, n int) int {
	admitted := 0
	for range n {
		if l.Allow() {
			admitted++
		}
	}
	return admitted
}

func TestStoreDecides(t *testing.T) {
	f := newStoreFixture(t, ratelimit.Config{Limit: 10, Period: time.Second, Burst: 3})
	assert.Equal(t, 3, count(f.l, 5), "the burst, then refusals")
	assert.Equal(t, 5, f.st.calls(), "a round trip per call")
	err := f.l.Wait(context.Background())
	var re *ratelimit.RateLimitedError
	require.ErrorAs(t, err, &re)
	assert.ErrorIs(t, err, policy.ErrRejected)
	assert.Equal(t, 100*time.Millisecond, re.RetryAfter(), "the store's answer")
	f.clk.Advance(40 * time.Millisecond)
	assert.Equal(t, 60*time.Millisecond, re.RetryAfter(), "less the time since")
	assert.Equal(t, 60*time.Millisecond, f.l.RetryAfter())
	f.clk.Advance(60 * time.Millisecond)
	assert.True(t, f.l.Allow())
	assert.False(t, f.l.Allow())
	snap := f.h.Snapshot()
	assert.Equal(t, int64(4), snap.Rejections)
	assert.True(t, snap.Store)
	assert.False(t, snap.Fallback)
	rejected := 0
	for _, e := range f.rec.All() {
		if e.Kind() == events.KindCallRejected {
			rejected++
		}
	}
	assert.Equal(t, 4, rejected)
	assert.Zero(t, f.clk.Pending(), "no timer left behind")
}

func TestStoreQuotaKeys(t *testing.T) {
	type tenant struct{}
	f := newStoreFixture(t, ratelimit.Config{Limit: 1, Period: time.Second, Burst: 2,
		QuotaKey: func(ctx context.Context) string { s, _ := ctx.Value(tenant{}).(string); return s }})
	a := context.WithValue(context.Background(), tenant{}, "a")
	b := context.WithValue(context.Background(), tenant{}, "b")
	for range 2 {
		require.NoError(t, f.l.Wait(a))
	}
	assert.ErrorIs(t, f.l.Wait(a), ratelimit.ErrRateLimited)
	for range 2 {
		require.NoError(t, f.l.Wait(b), "b's quota is its own")
	}
	assert.ErrorIs(t, f.l.Wait(b), ratelimit.ErrRateLimited)
	assert.Len(t, f.st.tat, 2)
	assert.Contains(t, f.st.tat, "api:a")
	assert.Contains(t, f.st.tat, "api:b")
}

func TestStoreWaitsForReservation(t *testing.T) {
	f := newStoreFixture(t, ratelimit.Config{Limit: 1, Period: time.Second, MaxWait: time.Second})
	require.True(t, f.l.Allow())
	p := &probe{end: policy.NoStamp}
	res := make(chan error, 1)
	reserved := make(chan context.Context, 1)
	f.st.mu.Lock()
	f.st.onReserve = func(ctx context.Context) { reserved <- ctx }
	f.st.mu.Unlock()
	go func() {
		_, _, err := f.next(p).Run(context.Background())
		res <- err
	}()
	// The store call arms a deadline of its own on the clock: the one
	// timer armed is the caller's wait only once the store has answered
	// and the call's deadline is released.
	select {
	case <-recv(t, reserved).Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the store call's deadline was never released")
	}
	f.st.mu.Lock()
	f.st.onReserve = nil
	f.st.mu.Unlock()
	blockUntil(t, f.clk, 1)
	f.clk.Advance(999 * time.Millisecond)
	assert.Len(t, res, 0)
	f.clk.Advance(time.Millisecond)
	require.NoError(t, recv(t, res))
	assert.Equal(t, 1, p.calls)
	assert.False(t, p.start.OK(), "after a wait the stage passes a fresh next")
	assert.Equal(t, time.Second, f.st.asked[1].MaxWait)

	// A wait cancelled by its caller gives its reservation back.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { res <- f.l.Wait(ctx) }()
	blockUntil(t, f.clk, 1)
	cancel()
	assert.ErrorIs(t, recv(t, res), context.Canceled)
	assert.Equal(t, 1, f.st.releases)
	f.clk.Advance(time.Second)
	assert.True(t, f.l.Allow(), "the permit came back")
	assert.Zero(t, f.h.Snapshot().Rejections)
	assert.Zero(t, f.clk.Pending())
}

func TestStoreWaitBoundedByDeadline(t *testing.T) {
	f := newStoreFixture(t, ratelimit.Config{Limit: 1, Period: time.Second, MaxWait: time.Hour})
	require.True(t, f.l.Allow())
	ctx, cancel := f.clk.WithDeadline(context.Background(), clocktest.Start.Add(500*time.Millisecond))
	defer cancel()
	assert.ErrorIs(t, f.l.Wait(ctx), ratelimit.ErrRateLimited)
	assert.Equal(t, 500*time.Millisecond, f.st.asked[1].MaxWait, "MaxWait cut to the deadline")
}

func storeEvents(rec *recorder) []events.StoreStateChanged {
	var out []events.StoreStateChanged
	for _, e := range rec.All() {
		if e, ok := e.(events.StoreStateChanged); ok {
			out = append(out, e)
		}
	}
	return out
}

func TestStoreFailureFallsBackLocally(t *testing.T) {
	f := newStoreFixture(t, ratelimit.Config{Limit: 10, Period: time.Second, Burst: 10,
		FallbackShare: 0.5, ProbeInterval: time.Second})
	require.True(t, f.l.Allow())
	f.st.set(errDown, false)
	// The fallback: 5 per second, a burst of 5; one failed round trip.
	assert.Equal(t, 5, count(f.l, 8))
	assert.Equal(t, 1, f.st.calls()+0, "only the call that found it down asked the store")
	assert.Equal(t, []events.StoreStateChanged{{Policy: "ratelimit", Instance: "api", Fallback: true, Mode: "local", Err: errDown}},
		storeEvents(f.rec))
	snap := f.h.Snapshot()
	assert.True(t, snap.Fallback)
	assert.Equal(t, int64(1), snap.Fallbacks)
	assert.Equal(t, int64(1), snap.StoreFailures)
	assert.Equal(t, 0, snap.Available)

	// The fallback's rate: one permit per 200ms.
	f.clk.Advance(200 * time.Millisecond)
	assert.Equal(t, 1, count(f.l, 3))

	// The probe is due after ProbeInterval: one call asks, fails, and
	// the next probe is another interval away.
	f.clk.Advance(800 * time.Millisecond) // the fallback regained 4
	assert.Equal(t, 4, count(f.l, 8))
	assert.Equal(t, int64(2), f.h.Snapshot().StoreFailures, "one probe")

	// The store is back: the next probe ends the fallback.
	f.st.set(nil, false)
	f.clk.Advance(time.Second)
	assert.True(t, f.l.Allow())
	assert.False(t, f.h.Snapshot().Fallback)
	ev := storeEvents(f.rec)
	require.Len(t, ev, 2)
	assert.Equal(t, events.StoreStateChanged{Policy: "ratelimit", Instance: "api", Fallback: false, Mode: "local"}, ev[1])
	before := f.st.calls()
	count(f.l, 3)
	assert.Equal(t, before+3, f.st.calls(), "every call asks the store again")
}

func TestStoreHangsFallsBackWithinTimeout(t *testing.T) {
	f := newStoreFixture(t, ratelimit.Config{Limit: 10, Period: time.Second, StoreTimeout: 20 * time.Millisecond,
		Fallback: ratelimit.FallbackOpen})
	f.st.set(nil, true)
	res := make(chan error, 1)
	go func() { res <- f.l.Wait(context.Background()) }()
	blockUntil(t, f.clk, 1) // the store call's deadline
	f.clk.Advance(19 * time.Millisecond)
	assert.Len(t, res, 0)
	f.clk.Advance(time.Millisecond)
	require.NoError(t, recv(t, res), "fail-open lets the call through")
	ev := storeEvents(f.rec)
	require.Len(t, ev, 1)
	assert.ErrorIs(t, ev[0].Err, context.DeadlineExceeded)
	assert.Equal(t, "open", ev[0].Mode)
	// While falling back, calls do not touch the store.
	assert.Equal(t, 1000, count(f.l, 1000))
	assert.Zero(t, f.clk.Pending())
}

func TestStoreFallbackClosed(t *testing.T) {
	f := newStoreFixture(t, ratelimit.Config{Limit: 10, Period: time.Second, Fallback: ratelimit.FallbackClosed,
		ProbeInterval: 2 * time.Second})
	f.st.set(errDown, false)
	err := f.l.Wait(context.Background())
	var re *ratelimit.RateLimitedError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 2*time.Second, re.RetryAfter(), "until the next probe")
	assert.Zero(t, count(f.l, 10))
	assert.Equal(t, int64(11), f.h.Snapshot().Rejections)
}

func TestStoreCallerCancelIsNotAFailure(t *testing.T) {
	f := newStoreFixture(t, ratelimit.Config{Limit: 10, Period: time.Second})
	f.st.set(nil, true)
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() { res <- f.l.Wait(ctx) }()
	blockUntil(t, f.clk, 1)
	cancel()
	assert.ErrorIs(t, recv(t, res), context.Canceled)
	snap := f.h.Snapshot()
	assert.False(t, snap.Fallback)
	assert.Zero(t, snap.StoreFailures)
	assert.Zero(t, snap.Rejections)
}

func TestStoreLeases(t *testing.T) {
	f := newStoreFixture(t, ratelimit.Config{Limit: 100, Period: time.Second, Burst: 20, Lease: 5, LeaseFor: 50 * time.Millisecond})
	assert.Equal(t, 20, count(f.l, 25), "the burst, as without leases")
	assert.Equal(t, 4+5, f.st.calls(), "a round trip per five permits, then per refusal")
	assert.Equal(t, 5, f.st.asked[0].Permits)

	// A lease smaller than asked: what is free.
	f.clk.Advance(30 * time.Millisecond) // 3 permits
	assert.Equal(t, 3, count(f.l, 5))

	// Leased permits expire after LeaseFor.
	f.clk.Advance(time.Second) // the bucket is full again
	require.True(t, f.l.Allow())
	assert.Equal(t, 4, f.l.Available(), "the rest of the lease")
	f.clk.Advance(50 * time.Millisecond)
	assert.Equal(t, 0, f.l.Available(), "expired")
	calls := f.st.calls()
	assert.True(t, f.l.Allow())
	assert.Equal(t, calls+1, f.st.calls())
}

func TestStoreLeaseAboveBurst(t *testing.T) {
	f := newStoreFixture(t, ratelimit.Config{Limit: 10, Period: time.Second, Burst: 2, Lease: 50})
	require.True(t, f.l.Allow())
	assert.Equal(t, 2, f.st.asked[0].Permits, "at most Burst")
}

func TestStoreConfigErrors(t *testing.T) {
	st := newMemStore(clocktest.NewManualClock())
	key := func(context.Context) string { return "" }
	for _, tc := range []struct {
		cfg   ratelimit.Config
		key   string
		class policy.Class
	}{
		{ratelimit.Config{QuotaKey: key}, "QuotaKey", policy.ClassCombination},
		{ratelimit.Config{Store: st, FallbackShare: 1.5}, "fallbackShare", policy.ClassRange},
		{ratelimit.Config{Store: st, FallbackShare: -0.5}, "fallbackShare", policy.ClassRange},
		{ratelimit.Config{Store: st, StoreTimeout: -time.Second}, "storeTimeout", policy.ClassDuration},
		{ratelimit.Config{Store: st, ProbeInterval: -time.Second}, "probeInterval", policy.ClassDuration},
		{ratelimit.Config{Store: st, Lease: -1}, "lease", policy.ClassBound},
		{ratelimit.Config{Store: st, LeaseFor: -1}, "leaseFor", policy.ClassDuration},
		{ratelimit.Config{Store: st, Fallback: 7}, "fallback", policy.ClassRange},
	} {
		l, err := ratelimit.New(tc.cfg, policy.Env{})
		assert.Nil(t, l)
		var fe *policy.FieldError
		require.ErrorAs(t, err, &fe, "%+v", tc.cfg)
		assert.Equal(t, tc.key, fe.Key)
		assert.Equal(t, tc.class, fe.Class)
	}
	c := ratelimit.Config{}
	c.SetZero("storeTimeout")
	_, err := ratelimit.New(c, policy.Env{})
	assert.ErrorContains(t, err, "storeTimeout=0s: must be positive")
}

func TestFallbackText(t *testing.T) {
	for _, f := range []ratelimit.Fallback{ratelimit.FallbackLocal, ratelimit.FallbackOpen, ratelimit.FallbackClosed} {
		b, err := f.MarshalText()
		require.NoError(t, err)
		var g ratelimit.Fallback
		require.NoError(t, g.UnmarshalText(b))
		assert.Equal(t, f, g)
		assert.Equal(t, string(b), f.String())
	}
	var g ratelimit.Fallback
	require.NoError(t, g.UnmarshalText([]byte("Fail-Open")))
	assert.Equal(t, ratelimit.FallbackOpen, g)
	assert.ErrorContains(t, g.UnmarshalText([]byte("half")), "must be local, open or closed")
	_, err := ratelimit.Fallback(9).MarshalText()
	assert.Error(t, err)
	assert.Equal(t, "Fallback(9)", ratelimit.Fallback(9).String())
}

// A limiter without a store keeps its cost: checked by TestZeroAllocs and
// the benchmarks; here, that a store-less limiter never calls one.
func TestNoStoreNoFallback(t *testing.T) {
	f := newFixture(t, ratelimit.Config{Limit: 1})
	snap := f.h.Snapshot()
	assert.False(t, snap.Store)
	assert.False(t, snap.Fallback)
}

// The overshoot leases allow, measured exactly: three replicas lease
// Lease permits each, then wait until the store's bucket is full again
// while their leases live. A span that starts then admits what it would
// without leases (the full burst and R·t from the store) and the
// 3 × (Lease-1) leased permits besides: the worst case, and the bound
// docs/rate-limiter.md states, min(N × (Lease-1), R × LeaseFor).
func TestLeaseOvershoot(t *testing.T) {
	// span runs the pattern and returns what a span of 500ms admitted.
	span := func(lease int, leaseFor time.Duration) int {
		clk := clocktest.NewManualClock()
		st := newMemStore(clk)
		var replicas []*ratelimit.Limiter
		for range 3 {
			l, err := ratelimit.New(ratelimit.Config{Limit: 100, Period: time.Second, Burst: 30, Lease: lease,
				LeaseFor: leaseFor, Store: st}, policy.Env{Clock: clk, Instance: "api"})
			require.NoError(t, err)
			replicas = append(replicas, l)
		}
		for _, l := range replicas {
			require.True(t, l.Allow()) // leases Lease permits, spends 1
		}
		clk.Advance(300 * time.Millisecond) // the bucket is full again
		admitted := 0
		for step := range 501 {
			if step > 0 {
				clk.Advance(time.Millisecond)
			}
			for _, l := range replicas {
				for l.Allow() {
					admitted++
				}
			}
		}
		return admitted
	}
	base := span(1, time.Second)
	assert.Equal(t, 30+50, base, "without leases: the burst and R·t")
	for _, tc := range []struct {
		leaseFor time.Duration
		want     int
	}{
		{time.Second, 3 * 9},        // the leases outlive the refill: N × (Lease-1)
		{250 * time.Millisecond, 0}, // they expired before: R × LeaseFor bounds nothing here, expiry does
	} {
		over := span(10, tc.leaseFor) - base
		assert.Equal(t, tc.want, over, "leaseFor %v", tc.leaseFor)
		assert.LessOrEqual(t, over, min(3*9, int(100*tc.leaseFor/time.Second)), "the documented bound")
	}
}

// TestPropertyStoreMatchesLocal drives a limiter on a store (in memory,
// on the same ManualClock) and a local one through the same random calls
// and clock moves: with a store that answers, the store path decides
// exactly as the in-process limiter (same admissions, same RetryAfter on
// refusal), and without failures it never falls back.
func TestPropertyStoreMatchesLocal(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		limit := rapid.IntRange(1, 20).Draw(rt, "limit")
		burst := rapid.IntRange(1, 5).Draw(rt, "burst")
		clk := clocktest.NewManualClock()
		cfg := ratelimit.Config{Limit: limit, Period: time.Second, Burst: burst}
		local, err := ratelimit.New(cfg, policy.Env{Clock: clk})
		require.NoError(rt, err)
		cfg.Store = newMemStore(clk)
		remote, err := ratelimit.New(cfg, policy.Env{Clock: clk})
		require.NoError(rt, err)
		for i := range rapid.IntRange(1, 60).Draw(rt, "steps") {
			if rapid.Bool().Draw(rt, "advance") {
				clk.Advance(time.Duration(rapid.Int64Range(0, int64(2*time.Second/time.Duration(limit))).Draw(rt, "d")))
			}
			now := clk.Nanotime()
			okL, afterL := local.AllowAt(now)
			okR, afterR := remote.AllowAt(now)
			require.Equal(rt, okL, okR, "step %d", i)
			require.Equal(rt, afterL, afterR, "step %d: RetryAfter", i)
		}
		snap := remote.Handle().Snapshot()
		require.False(rt, snap.Fallback)
		require.Equal(rt, local.Handle().Snapshot().Rejections, snap.Rejections)
	})
}

// FuzzFallbackText: UnmarshalText takes any text without panicking, and
// what it takes, MarshalText writes back as a canonical name that reads
// as the same mode.
func FuzzFallbackText(f *testing.F) {
	for _, s := range []string{"local", "open", "closed", "fail-open", "FAIL_CLOSED", "", "half", "Local "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var m ratelimit.Fallback
		if err := m.UnmarshalText([]byte(s)); err != nil {
			return
		}
		b, err := m.MarshalText()
		require.NoError(t, err)
		var again ratelimit.Fallback
		require.NoError(t, again.UnmarshalText(b))
		require.Equal(t, m, again)
		require.Equal(t, string(b), m.String())
	})
}
