package r4credis_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/r4credis"
)

// uniq returns a name no other test or run uses, so that no quota is
// left over from before.
func uniq(t testing.TB) string {
	return t.Name() + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// counter counts the commands a client sends (its round trips: the store
// sends one command per round trip).
type counter struct {
	n     atomic.Int64
	names sync.Map // command name -> *atomic.Int64
}

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		v, _ := c.names.LoadOrStore(cmd.Name(), new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
		return next(ctx, cmd)
	}
}
func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}
func (c *counter) of(name string) int64 {
	if v, ok := c.names.Load(name); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

func newStore(t testing.TB, c redis.UniversalClient) *r4credis.Store {
	t.Helper()
	st, err := r4credis.New(c, r4credis.Options{})
	require.NoError(t, err)
	return st
}

// newLimiter returns the limiter of cfg. A test that does not test the
// store timeout gets one of 2s, so that a slow first dial on a loaded
// machine does not make the limiter fall back.
func newLimiter(t testing.TB, cfg ratelimit.Config, env policy.Env) *ratelimit.Limiter {
	t.Helper()
	if cfg.StoreTimeout == 0 {
		cfg.StoreTimeout = 2 * time.Second
	}
	l, err := ratelimit.New(cfg, env)
	require.NoError(t, err)
	return l
}

func TestNewRefusesBadClients(t *testing.T) {
	_, err := r4credis.New(nil, r4credis.Options{})
	var ce *r4c.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.ErrorIs(t, err, r4c.ErrConfig)
	assert.Equal(t, r4c.CodeInvalidInCode, ce.Code)
	assert.Contains(t, err.Error(), "R4C-REG-001 r4credis.New(client)=nil: needs a Redis client")

	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	_, err = r4credis.New(c, r4credis.Options{})
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "r4credis.New(client).ContextTimeoutEnabled", ce.Key)
	assert.Contains(t, err.Error(), "must be true")

	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}})
	defer cc.Close()
	_, err = r4credis.New(cc, r4credis.Options{})
	assert.ErrorAs(t, err, &ce)
}

func TestKeyIsHashTagged(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer c.Close()
	st := newStore(t, c)
	assert.Equal(t, "r4c:rl:{api:tenant-7}", st.Key("api:tenant-7"))
	st, err := r4credis.New(c, r4credis.Options{Prefix: "app1:"})
	require.NoError(t, err)
	assert.Equal(t, "app1:{api}", st.Key("api"))
}

func TestAllowAndRetryAfter(t *testing.T) {
	s := needServer(t)
	c := s.client(t)
	id := uniq(t)
	l := newLimiter(t, ratelimit.Config{Limit: 10, Period: time.Second, Burst: 3, Store: newStore(t, c)}, policy.Env{Instance: id})
	for i := range 3 {
		require.True(t, l.Allow(), "permit %d of the burst", i)
	}
	ok, after := l.AllowAt(0)
	require.False(t, ok)
	assert.Positive(t, after)
	assert.LessOrEqual(t, after, 100*time.Millisecond, "three permits taken just now: the next comes one interval later")
	err := l.Wait(context.Background())
	var re *ratelimit.RateLimitedError
	require.ErrorAs(t, err, &re)
	assert.ErrorIs(t, err, policy.ErrRejected)
	assert.Greater(t, re.RetryAfter(), 50*time.Millisecond)
	assert.LessOrEqual(t, re.RetryAfter(), 100*time.Millisecond)

	pttl, err := c.PTTL(context.Background(), "r4c:rl:{"+id+"}").Result()
	require.NoError(t, err)
	assert.Greater(t, pttl, 250*time.Millisecond, "the key lives until the bucket is full again")
	assert.LessOrEqual(t, pttl, 301*time.Millisecond, "and no longer")
	assert.Equal(t, int64(2), l.Handle().Snapshot().Rejections)
}

func TestWaitForReservation(t *testing.T) {
	s := needServer(t)
	c := s.client(t)
	l := newLimiter(t, ratelimit.Config{Limit: 20, Period: time.Second, Burst: 1, MaxWait: time.Second, Store: newStore(t, c)},
		policy.Env{Instance: uniq(t)})
	start := time.Now()
	for range 5 {
		require.NoError(t, l.Wait(context.Background()))
	}
	// One at once, then four spaced 50ms apart (the server's clock): never
	// sooner; later by the round trips and the timers' latency.
	took := time.Since(start)
	assert.GreaterOrEqual(t, took, 190*time.Millisecond)
	assert.Less(t, took, time.Second)
}

func TestScriptReloadedAfterFlush(t *testing.T) {
	s := needServer(t)
	c := s.client(t)
	cnt := &counter{}
	c.AddHook(cnt)
	l := newLimiter(t, ratelimit.Config{Limit: 1000, Store: newStore(t, c)}, policy.Env{Instance: uniq(t)})
	require.NoError(t, c.ScriptFlush(context.Background()).Err())
	base := cnt.n.Load()
	require.True(t, l.Allow())
	assert.Equal(t, int64(2), cnt.n.Load()-base, "EVALSHA answered NOSCRIPT, then EVAL")
	require.True(t, l.Allow())
	assert.Equal(t, int64(3), cnt.n.Load()-base, "then EVALSHA alone: one round trip")
	assert.Equal(t, int64(1), cnt.of("eval"))
}

type tenantKey struct{}

func tenant(ctx context.Context) string { s, _ := ctx.Value(tenantKey{}).(string); return s }

func TestQuotaKeysAreIndependent(t *testing.T) {
	s := needServer(t)
	c := s.client(t)
	id := uniq(t)
	l := newLimiter(t, ratelimit.Config{Limit: 1, Period: time.Minute, Burst: 2, Store: newStore(t, c), QuotaKey: tenant},
		policy.Env{Instance: id})
	ctxA := context.WithValue(context.Background(), tenantKey{}, "a")
	ctxB := context.WithValue(context.Background(), tenantKey{}, "b")
	for range 2 {
		require.NoError(t, l.Wait(ctxA))
	}
	require.ErrorIs(t, l.Wait(ctxA), ratelimit.ErrRateLimited)
	for range 2 {
		require.NoError(t, l.Wait(ctxB), "b has a quota of its own")
	}
	require.ErrorIs(t, l.Wait(ctxB), ratelimit.ErrRateLimited)
	n, err := c.Exists(context.Background(), "r4c:rl:{"+id+":a}", "r4c:rl:{"+id+":b}").Result()
	require.NoError(t, err)
	assert.Equal(t, int64(2), n)

	// Another instance of the same quota keys (another replica) shares them.
	l2 := newLimiter(t, ratelimit.Config{Limit: 1, Period: time.Minute, Burst: 2, Store: newStore(t, c), QuotaKey: tenant},
		policy.Env{Instance: id})
	assert.ErrorIs(t, l2.Wait(ctxA), ratelimit.ErrRateLimited)
	ctxC := context.WithValue(context.Background(), tenantKey{}, "c")
	assert.NoError(t, l2.Wait(ctxC))
}

func TestKeysExpire(t *testing.T) {
	s := needServer(t)
	c := s.client(t)
	id := uniq(t)
	// 20 a second: the bucket refills in 10 × 50 ms, so the key lives at
	// most half a second, long enough that a busy machine still reads its
	// TTL before it expires (at 1,000 a second it lived 11 ms, and a
	// scheduling pause of that much read no key at all).
	l := newLimiter(t, ratelimit.Config{Limit: 20, Period: time.Second, Burst: 10, Store: newStore(t, c)}, policy.Env{Instance: id})
	for range 10 {
		require.True(t, l.Allow())
	}
	key := "r4c:rl:{" + id + "}"
	pttl, err := c.PTTL(context.Background(), key).Result()
	require.NoError(t, err)
	assert.Greater(t, pttl, time.Duration(0))
	assert.LessOrEqual(t, pttl, 501*time.Millisecond, "at most burst × interval, and a millisecond")
	gone := false
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if n, err := c.Exists(context.Background(), key).Result(); err == nil && n == 0 {
			gone = true
			break
		}
	}
	assert.True(t, gone, "the idle key expired")
	require.True(t, l.Allow(), "a quota without a key is a full bucket")
}

func TestReleaseGivesBack(t *testing.T) {
	s := needServer(t)
	c := s.client(t)
	st := newStore(t, c)
	id := uniq(t)
	req := ratelimit.StoreRequest{Interval: time.Second, Burst: 1, Permits: 1, MaxWait: time.Hour}
	ctx := context.Background()
	r, err := st.Reserve(ctx, id, req)
	require.NoError(t, err)
	assert.Equal(t, ratelimit.Reservation{Permits: 1}, r)
	r, err = st.Reserve(ctx, id, req)
	require.NoError(t, err)
	assert.Equal(t, 1, r.Permits)
	assert.Greater(t, r.Wait, 900*time.Millisecond)
	assert.LessOrEqual(t, r.Wait, time.Second)
	require.NoError(t, st.Release(ctx, id, req, 1))
	r, err = st.Reserve(ctx, id, ratelimit.StoreRequest{Interval: time.Second, Burst: 1, Permits: 1})
	require.NoError(t, err)
	assert.Equal(t, 0, r.Permits, "the first permit is still taken")
	assert.Greater(t, r.RetryAfter, 900*time.Millisecond)
	assert.LessOrEqual(t, r.RetryAfter, time.Second, "the second came back: else 2s")
	// Releasing more than was taken stops at a full bucket: the key goes.
	require.NoError(t, st.Release(ctx, id, req, 5))
	n, err := c.Exists(ctx, st.Key(id)).Result()
	require.NoError(t, err)
	assert.Zero(t, n)
	require.NoError(t, st.Release(ctx, id, req, 1), "releasing a missing quota is harmless")
}

func TestLeaseGrantsWhatIsFree(t *testing.T) {
	s := needServer(t)
	c := s.client(t)
	st := newStore(t, c)
	id := uniq(t)
	ctx := context.Background()
	req := ratelimit.StoreRequest{Interval: time.Second, Burst: 7, Permits: 5}
	r, err := st.Reserve(ctx, id, req)
	require.NoError(t, err)
	assert.Equal(t, ratelimit.Reservation{Permits: 5}, r)
	r, err = st.Reserve(ctx, id, req)
	require.NoError(t, err)
	assert.Equal(t, ratelimit.Reservation{Permits: 2}, r, "the two left of the burst")
	r, err = st.Reserve(ctx, id, req)
	require.NoError(t, err)
	assert.Equal(t, 0, r.Permits)
}

// A cluster of one node that owns every slot: the store works through a
// ClusterClient, the hash tag keeping each quota in one slot.
func TestClusterClient(t *testing.T) {
	needServer(t)
	s, err := startClusterNode()
	require.NoError(t, err)
	defer s.stop()
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{s.addr()}, ContextTimeoutEnabled: true})
	defer c.Close()
	st := newStore(t, c)
	id := uniq(t)
	l := newLimiter(t, ratelimit.Config{Limit: 1, Period: time.Minute, Burst: 2, Store: st, QuotaKey: tenant}, policy.Env{Instance: id})
	ctx := context.WithValue(context.Background(), tenantKey{}, "x")
	require.NoError(t, l.Wait(ctx))
	require.NoError(t, l.Wait(ctx))
	require.ErrorIs(t, l.Wait(ctx), ratelimit.ErrRateLimited)
	assert.False(t, l.Handle().Snapshot().Fallback)
	slot, err := c.ClusterKeySlot(context.Background(), st.Key(id+":x")).Result()
	require.NoError(t, err)
	want, err := c.ClusterKeySlot(context.Background(), id+":x").Result()
	require.NoError(t, err)
	assert.Equal(t, want, slot, "the slot of the hash tag")
}

// A failover client asks a sentinel for the master and runs the store
// there.
func TestSentinelClient(t *testing.T) {
	s := needServer(t)
	sen, err := startSentinel(s)
	require.NoError(t, err)
	defer sen.stop()
	c := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "r4c", SentinelAddrs: []string{sen.addr()},
		ContextTimeoutEnabled: true})
	defer c.Close()
	plain := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "r4c", SentinelAddrs: []string{sen.addr()}})
	_, err = r4credis.New(plain, r4credis.Options{})
	assert.Error(t, err, "a failover client without ContextTimeoutEnabled is refused too")
	plain.Close()
	st := newStore(t, c)
	id := uniq(t)
	l := newLimiter(t, ratelimit.Config{Limit: 1, Period: time.Minute, Burst: 2, Store: st}, policy.Env{Instance: id})
	assert.True(t, l.Allow())
	assert.True(t, l.Allow())
	assert.False(t, l.Allow())
	n, err := s.client(t).Exists(context.Background(), st.Key(id)).Result()
	require.NoError(t, err)
	assert.Equal(t, int64(1), n, "the quota is on the master")
}

// skewed is the system clock moved by off: another machine's clock.
type skewed struct{ off time.Duration }

func (s skewed) Now() time.Time                        { return policy.System.Now().Add(s.off) }
func (s skewed) Nanotime() int64                       { return policy.System.Nanotime() + int64(s.off) }
func (s skewed) NewTimer(d time.Duration) policy.Timer { return policy.System.NewTimer(d) }
func (s skewed) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return policy.System.WithDeadline(parent, d.Add(-s.off))
}

// Three clients an hour apart share one quota: the server's clock decides,
// so the admitted count is the limit's.
func TestClockSkewDoesNotMatter(t *testing.T) {
	s := needServer(t)
	c := s.client(t)
	st := &countingStore{Store: newStore(t, c)}
	id := uniq(t)
	const rate, burst, span = 100, 10, 4 * time.Second
	var admitted atomic.Int64
	var wg sync.WaitGroup
	start := time.Now().Add(100 * time.Millisecond)
	end := start.Add(span)
	for _, off := range []time.Duration{-time.Hour, 0, time.Hour} {
		l := newLimiter(t, ratelimit.Config{Limit: rate, Period: time.Second, Burst: burst, MaxWait: 250 * time.Millisecond, Store: st},
			policy.Env{Instance: id, Clock: skewed{off}})
		for g := range 5 { // 12 waiters reserve 120ms ahead
			wg.Go(func() { admitted.Add(hammer(l, skewed{off}, start, end, g < 4)) })
		}
	}
	wg.Wait()
	want := float64(burst + rate*span/time.Second)
	granted := st.granted.Load()
	t.Logf("granted %d, want %v", granted, want)
	checkAdmitted(t, granted, want)
	assert.LessOrEqual(t, admitted.Load(), granted, "calls admitted")
}

// The same, exactly: a quota of 5 an hour taken by a client whose clock is
// right leaves nothing to clients an hour ahead or behind, which would
// each have found a full bucket on their own clocks.
func TestClockSkewExact(t *testing.T) {
	s := needServer(t)
	st := newStore(t, s.client(t))
	id := uniq(t)
	admitted := map[time.Duration]int{}
	for _, off := range []time.Duration{0, time.Hour, -time.Hour, 2 * time.Hour} {
		l := newLimiter(t, ratelimit.Config{Limit: 5, Period: time.Hour, Store: st}, policy.Env{Instance: id, Clock: skewed{off}})
		for range 10 {
			if l.Allow() {
				admitted[off]++
			}
		}
		if off != 0 {
			assert.InDelta(t, float64(12*time.Minute), float64(l.RetryAfter()), float64(time.Minute),
				"clock %v: the server's RetryAfter", off)
		}
	}
	assert.Equal(t, map[time.Duration]int{0: 5}, admitted)
}

// hammer takes permits from l from start until end, as fast as it can:
// with Allow (backing off for RetryAfter, at most 2ms) or with Wait. It
// returns how many it got.
//
// Its ctx's deadline, end, is set on the limiter's clock, as a ctx of that
// machine would be.
func hammer(l *ratelimit.Limiter, clk policy.Clock, start, end time.Time, useWait bool) int64 {
	time.Sleep(time.Until(start))
	var n int64
	ctx, cancel := clk.WithDeadline(context.Background(), clk.Now().Add(time.Until(end)))
	defer cancel()
	for time.Now().Before(end) {
		if useWait {
			if err := l.Wait(ctx); err == nil {
				n++
			} else if !errors.Is(err, ratelimit.ErrRateLimited) {
				return n // the deadline
			}
			continue
		}
		if l.Allow() {
			n++
		} else {
			time.Sleep(min(l.RetryAfter(), 2*time.Millisecond))
		}
	}
	return n
}

// countingStore counts the permits its store granted. A wait whose
// caller's deadline comes before its permit (a timer that fires late on a
// loaded machine, for a permit reserved just before the span's end) gives
// the permit back after the span: it was granted within it all the same.
// So the permits a shared limit granted in a span are counted here, not by
// the calls that returned nil.
type countingStore struct {
	ratelimit.Store
	granted atomic.Int64
}

func (c *countingStore) Reserve(ctx context.Context, key string, r ratelimit.StoreRequest) (ratelimit.Reservation, error) {
	res, err := c.Store.Reserve(ctx, key, r)
	if err == nil {
		c.granted.Add(int64(res.Permits))
	}
	return res, err
}

func storeEvents(mu *sync.Mutex, all *[]events.StoreStateChanged) func(events.Event) {
	return func(e events.Event) {
		if e, ok := e.(events.StoreStateChanged); ok {
			mu.Lock()
			*all = append(*all, e)
			mu.Unlock()
		}
	}
}
