package ratelimit

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
)

// maxQuotas is how many per-key quotas (Config.QuotaKey) a limiter keeps
// in the process (for leases and the local fallback) before it drops the
// idle ones: those whose fallback bucket is full and whose lease is spent
// or expired, which are the same as new ones. Busy quotas are never
// dropped, so more than maxQuotas busy keys grow the map past it; it is
// then scanned again each time it grew by a quarter of maxQuotas.
const maxQuotas = 4096

// remote is the part of a [Limiter] whose state lives in a [Store]: the
// store calls with their timeout, the fallback while the store fails, the
// probes that find it again, and the leases.
//
// Its state machine has two states. On the store (failing false), every
// call asks the store, bounded by the store timeout. The first call whose
// store call fails (an error, or no answer in time, the caller's own ctx
// not being done) switches to falling back (failing true), publishes an
// events.StoreStateChanged and is decided by the fallback. While falling
// back, calls are decided by the fallback without a round trip, except one
// call per probe interval (the first whose clock reading reaches
// nextProbe, claimed with a CAS) that asks the store first; the first
// store call that answers in time switches back to the store and
// publishes an events.StoreStateChanged.
type remote struct {
	l        *Limiter
	store    Store
	keyOf    func(context.Context) string
	req      StoreRequest // Permits: the lease, at most Burst; MaxWait set per call
	timeout  time.Duration
	mode     Fallback
	probe    int64
	leaseFor int64

	// The local fallback's GCRA, at FallbackShare of the rate and burst.
	fbInterval, fbTolerance int64
	fbBurst                 int

	failing   atomic.Bool
	nextProbe atomic.Int64 // a clock reading: when the next probe is due
	failures  atomic.Uint64
	fallbacks atomic.Uint64
	storeErr  atomic.Pointer[error] // the last store failure, for the event

	// The last refusal, for Limiter.RetryAfter: when (a clock reading) and
	// how long the store said.
	lastAt, lastAfter atomic.Int64

	one     *quota   // the only quota, without QuotaKey
	quotas  sync.Map // key -> *quota, with QuotaKey
	nq      atomic.Int64
	pruneAt atomic.Int64 // the count of quotas at which to prune next
	pruneMu sync.Mutex
}

// quota is what the process keeps of one key's quota: the local fallback's
// bucket and the permits leased from the store.
type quota struct {
	key string
	fb  atomic.Int64 // the fallback's theoretical arrival time

	mu       sync.Mutex
	leased   int   // permits leased and not spent
	leaseEnd int64 // clock reading at which unspent leased permits are dropped
}

func newRemote(l *Limiter, cfg Config, interval, now int64) *remote {
	r := &remote{
		l:        l,
		store:    cfg.Store,
		keyOf:    cfg.QuotaKey,
		req:      StoreRequest{Interval: time.Duration(interval), Burst: cfg.Burst, Permits: min(cfg.Lease, cfg.Burst)},
		timeout:  cfg.StoreTimeout,
		mode:     cfg.Fallback,
		probe:    int64(cfg.ProbeInterval),
		leaseFor: int64(cfg.LeaseFor),
	}
	// The fallback's rate is share × Limit per Period: its interval is
	// Period / (share × Limit), at least the store's; its burst share ×
	// Burst, at least 1.
	fbi := float64(cfg.Period) / (cfg.FallbackShare * float64(cfg.Limit))
	r.fbInterval = max(interval, int64(min(fbi, math.MaxInt64/2)))
	r.fbBurst = max(1, int(cfg.FallbackShare*float64(cfg.Burst)))
	if int64(r.fbBurst-1) > math.MaxInt64/2/r.fbInterval {
		r.fbBurst = int(math.MaxInt64/2/r.fbInterval) + 1
	}
	r.fbTolerance = int64(r.fbBurst-1) * r.fbInterval
	if r.keyOf == nil {
		r.one = &quota{key: l.instance}
		r.one.fb.Store(now)
	}
	r.lastAt.Store(now)
	r.pruneAt.Store(maxQuotas)
	return r
}

// quotaOf returns the quota of ctx's key, made at now if it is new.
func (r *remote) quotaOf(ctx context.Context, now int64) *quota {
	if r.one != nil {
		return r.one
	}
	key := r.l.instance + ":" + r.keyOf(ctx)
	if q, ok := r.quotas.Load(key); ok {
		return q.(*quota)
	}
	if r.nq.Load() >= r.pruneAt.Load() {
		r.prune(now) // before the new quota is in: it would be idle
	}
	q := &quota{key: key}
	q.fb.Store(now)
	if got, loaded := r.quotas.LoadOrStore(key, q); loaded {
		return got.(*quota)
	}
	r.nq.Add(1)
	return q
}

// prune drops the idle quotas: a full fallback bucket and no lease left.
// A caller that still holds a dropped quota uses it once more; what it
// does there is forgotten, which can only lose a lease (fewer calls) or
// refill a fallback bucket that was nearly full.
func (r *remote) prune(now int64) {
	if !r.pruneMu.TryLock() {
		return
	}
	defer r.pruneMu.Unlock()
	r.quotas.Range(func(k, v any) bool {
		q := v.(*quota)
		q.mu.Lock()
		idle := q.fb.Load()-now <= 0 && (q.leased == 0 || q.leaseEnd-now <= 0)
		q.mu.Unlock()
		if idle {
			r.quotas.Delete(k)
			r.nq.Add(-1)
		}
		return true
	})
	// With many busy quotas left, wait for a quarter more before scanning
	// again, so that each new key does not scan them all.
	r.pruneAt.Store(max(maxQuotas, r.nq.Load()+maxQuotas/4))
}

// spend takes a leased permit if one is left and not expired at now.
func (q *quota) spend(now int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.leased > 0 && now-q.leaseEnd < 0 {
		q.leased--
		return true
	}
	q.leased = 0
	return false
}

// lease keeps n permits, leased at now, to spend until now + span.
func (q *quota) lease(n int, now, span int64) {
	q.mu.Lock()
	q.leased, q.leaseEnd = n, now+span
	q.mu.Unlock()
}

// maxWaitFor returns how long a call of ctx at now may wait: the
// limiter's MaxWait, cut to ctx's deadline.
func (r *remote) maxWaitFor(ctx context.Context) time.Duration {
	limit := r.l.st.Load().maxWait
	if limit <= 0 {
		return 0
	}
	if dl, ok := ctx.Deadline(); ok {
		limit = min(limit, dl.Sub(r.l.clock.Now()))
	}
	return max(limit, 0)
}

// take decides a call of ctx at now (a reading of the limiter's clock),
// waiting up to maxWait for its permit, and reports whether it waited. It
// returns nil with a permit, the caller's ctx.Err() when ctx ended first,
// or a *RateLimitedError.
func (r *remote) take(ctx context.Context, now int64, maxWait time.Duration) (waited bool, err error) {
	q := r.quotaOf(ctx, now)
	if r.req.Permits > 1 && q.spend(now) {
		return false, nil
	}
	if r.failing.Load() {
		p := r.nextProbe.Load()
		if now-p < 0 || !r.nextProbe.CompareAndSwap(p, now+r.probe) {
			return r.fallback(ctx, q, now, maxWait)
		}
		// This call probes the store.
	}
	req := r.req
	req.MaxWait = maxWait
	clk := r.l.clock
	sctx, cancel := clk.WithDeadline(ctx, clk.Now().Add(r.timeout))
	res, err := r.store.Reserve(sctx, q.key, req)
	cancel()
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return false, cerr // the caller's own end, not the store's failure
		}
		r.fail(now, err)
		return r.fallback(ctx, q, now, maxWait)
	}
	r.recovered()
	if res.Permits <= 0 {
		return false, r.refuse(now, res.RetryAfter)
	}
	if res.Permits > 1 {
		q.lease(res.Permits-1, clk.Nanotime(), r.leaseFor)
	}
	if res.Wait <= 0 {
		return false, nil
	}
	if err := policy.Sleep(ctx, clk, res.Wait); err != nil {
		r.release(ctx, q)
		return true, err
	}
	return true, nil
}

// allow is Limiter.AllowAt with a store: a call without a ctx, that does
// not wait.
func (r *remote) allow(now int64) (bool, time.Duration) {
	_, err := r.take(context.Background(), now, 0)
	if err == nil {
		return true, 0
	}
	if e, ok := err.(*RateLimitedError); ok {
		return false, e.after
	}
	return false, 0 // unreachable: Background is never done
}

// release gives back to the store the permit of a wait its caller
// cancelled, within the store timeout (the caller's cancellation does not
// cut it short: a ctx without it). If the store does not take it back, or
// is known to be failing, the permit is lost: the quota errs on the side
// of fewer calls.
func (r *remote) release(ctx context.Context, q *quota) {
	if r.failing.Load() {
		return
	}
	clk := r.l.clock
	sctx, cancel := clk.WithDeadline(context.WithoutCancel(ctx), clk.Now().Add(r.timeout))
	defer cancel()
	if err := r.store.Release(sctx, q.key, r.req, 1); err != nil {
		r.failures.Add(1)
	}
}

// fail records a store failure at now and, if the limiter was on the
// store, switches to falling back.
func (r *remote) fail(now int64, err error) {
	r.failures.Add(1)
	if r.failing.Load() {
		return
	}
	r.storeErr.Store(&err)
	r.nextProbe.Store(now + r.probe)
	if r.failing.CompareAndSwap(false, true) {
		r.fallbacks.Add(1)
		if r.l.bus.Active() {
			r.l.bus.Publish(events.StoreStateChanged{Policy: "ratelimit", Instance: r.l.instance, Fallback: true, Mode: r.mode.String(), Err: err})
		}
	}
}

// recovered switches back to the store if the limiter was falling back.
func (r *remote) recovered() {
	if r.failing.Load() && r.failing.CompareAndSwap(true, false) {
		if r.l.bus.Active() {
			r.l.bus.Publish(events.StoreStateChanged{Policy: "ratelimit", Instance: r.l.instance, Fallback: false, Mode: r.mode.String()})
		}
	}
}

// fallback decides a call while the store fails.
func (r *remote) fallback(ctx context.Context, q *quota, now int64, maxWait time.Duration) (bool, error) {
	switch r.mode {
	case FallbackOpen:
		return false, nil
	case FallbackClosed:
		return false, r.refuse(now, time.Duration(max(r.nextProbe.Load()-now, 0)))
	}
	d, ok := r.fbTake(q, now, int64(maxWait))
	if !ok {
		return false, r.refuse(now, time.Duration(d))
	}
	if d == 0 {
		return false, nil
	}
	if err := policy.Sleep(ctx, r.l.clock, time.Duration(d)); err != nil {
		q.fb.Add(-r.fbInterval)
		return true, err
	}
	return true, nil
}

// fbTake is the fallback's GCRA: [Limiter.take] on q's local bucket.
func (r *remote) fbTake(q *quota, now, maxWait int64) (wait int64, ok bool) {
	for {
		tat := q.fb.Load()
		t := tat
		if now-tat > 0 {
			t = now
		}
		wait = t - now - r.fbTolerance
		if wait > maxWait {
			return wait, false
		}
		if q.fb.CompareAndSwap(tat, t+r.fbInterval) {
			return max(wait, 0), true
		}
	}
}

// refuse counts and publishes a refusal at now whose permit comes after
// d, and returns its error: a new *RateLimitedError that remembers d,
// since quotas of different keys differ.
func (r *remote) refuse(now int64, d time.Duration) error {
	l := r.l
	l.rejections.Add(1)
	r.lastAt.Store(now)
	r.lastAfter.Store(int64(d))
	err := &RateLimitedError{l: l, instance: l.instance, fixed: true, at: now, after: d}
	err.msg.Store(l.err.msg.Load())
	if l.bus.Active() {
		l.bus.Publish(events.CallRejected{Policy: "ratelimit", Instance: l.instance, Err: err})
	}
	return err
}

// available is Limiter.AvailableAt with a store: what the process can
// grant without a round trip.
func (r *remote) available(now int64) int {
	if r.failing.Load() {
		switch r.mode {
		case FallbackOpen:
			return r.l.st.Load().burst
		case FallbackClosed:
			return 0
		}
		if r.one == nil {
			return 0
		}
		tat := r.one.fb.Load()
		if tat-now <= 0 {
			return r.fbBurst
		}
		room := now + r.fbTolerance - tat
		if room < 0 {
			return 0
		}
		return int(room/r.fbInterval) + 1
	}
	if r.one == nil {
		return 0
	}
	r.one.mu.Lock()
	defer r.one.mu.Unlock()
	if r.one.leased > 0 && now-r.one.leaseEnd < 0 {
		return r.one.leased
	}
	return 0
}

// retryAfter is Limiter.RetryAfterAt with a store: what the last refusal
// said, less the time since.
func (r *remote) retryAfter(now int64) time.Duration {
	return time.Duration(max(r.lastAfter.Load()-(now-r.lastAt.Load()), 0))
}
