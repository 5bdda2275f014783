package r4credis

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// DefaultPrefix starts every key a [Store] writes, unless Options.Prefix
// says otherwise.
const DefaultPrefix = "r4c:rl:"

// Options configures a [Store]. The zero value is ready to use.
type Options struct {
	// Prefix starts the name of every key the store writes, so that several
	// applications can share one Redis. Default [DefaultPrefix].
	Prefix string
}

// Store is a ratelimit.Store on Redis: the rate limiters that share it
// (and every process that makes one on the same Redis with the same
// Prefix) draw from one quota per key. It is safe for concurrent use and
// holds nothing but the client: close the client, not the store.
//
// Each decision is one Lua script run atomically by Redis (EVALSHA, and
// EVAL when the server answers NOSCRIPT, having lost its script cache),
// timed by the server's clock (TIME), so the clients' clocks may disagree.
// A quota is one string key, Prefix + "{" + key + "}", holding the
// quota's theoretical arrival time; it expires when its bucket is full
// again, so idle quotas take no memory. The braces are a hash tag: a
// quota lives in one slot of a Redis Cluster whatever its key.
type Store struct {
	c      redis.UniversalClient
	prefix string
}

var _ ratelimit.Store = (*Store)(nil)

// New returns a Store on c, which may be a single-node, Sentinel
// (failover) or Cluster client. It does not contact Redis.
//
// c must have ContextTimeoutEnabled set: without it go-redis bounds a call
// by its ReadTimeout (3s by default) instead of the ctx the limiter gives
// it, and a dead Redis could hold calls past the limiter's StoreTimeout.
// New returns a *r4c.ConfigError (code R4C-REG-001) for a nil client or a
// client without ContextTimeoutEnabled.
func New(c redis.UniversalClient, opts Options) (*Store, error) {
	if c == nil {
		return nil, &r4c.ConfigError{Code: r4c.CodeInvalidInCode, Key: "r4credis.New(client)", Value: "nil", Rule: "needs a Redis client"}
	}
	if enabled, known := contextTimeouts(c); known && !enabled {
		return nil, &r4c.ConfigError{Code: r4c.CodeInvalidInCode, Key: "r4credis.New(client).ContextTimeoutEnabled", Value: "false",
			Rule: "must be true, so that the store timeout bounds every call to Redis (else go-redis waits its ReadTimeout)"}
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	return &Store{c: c, prefix: opts.Prefix}, nil
}

// contextTimeouts reports whether c honours its ctx's deadline, when its
// type tells.
func contextTimeouts(c redis.UniversalClient) (enabled, known bool) {
	switch c := c.(type) {
	case *redis.Client:
		return c.Options().ContextTimeoutEnabled, true
	case *redis.ClusterClient:
		return c.Options().ContextTimeoutEnabled, true
	case *redis.Ring:
		return c.Options().ContextTimeoutEnabled, true
	}
	return false, false
}

// Key returns the Redis key of the quota called key.
func (s *Store) Key(key string) string { return s.prefix + "{" + key + "}" }

// Reserve implements ratelimit.Store: one round trip (two when Redis has
// lost the script).
func (s *Store) Reserve(ctx context.Context, key string, r ratelimit.StoreRequest) (ratelimit.Reservation, error) {
	v, err := s.run(ctx, reserve, key, micros(r.Interval), r.Burst, r.Permits, micros(r.MaxWait))
	if err != nil {
		return ratelimit.Reservation{}, err
	}
	if len(v) != 2 {
		return ratelimit.Reservation{}, fmt.Errorf("r4credis: the reserve script answered %v", v)
	}
	if v[0] == 0 {
		return ratelimit.Reservation{RetryAfter: time.Duration(v[1])}, nil
	}
	return ratelimit.Reservation{Permits: int(v[0]), Wait: time.Duration(v[1])}, nil
}

// Release implements ratelimit.Store.
func (s *Store) Release(ctx context.Context, key string, r ratelimit.StoreRequest, n int) error {
	_, err := s.run(ctx, release, key, micros(r.Interval), n)
	return err
}

// micros is d in microseconds, the scripts' unit of time.
func micros(d time.Duration) float64 { return float64(d) / 1e3 }

// run runs sc on key with args: EVALSHA, then EVAL if the server does not
// have the script.
func (s *Store) run(ctx context.Context, sc *script, key string, args ...any) ([]int64, error) {
	keys := []string{s.Key(key)}
	v, err := s.c.EvalSha(ctx, sc.sha, keys, args...).Int64Slice()
	if err != nil && isNoScript(err) {
		v, err = s.c.Eval(ctx, sc.src, keys, args...).Int64Slice()
	}
	return v, err
}

func isNoScript(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.HasPrefix(re.Error(), "NOSCRIPT")
}

// script is a Lua script and its SHA-1, the name EVALSHA knows it by.
type script struct{ src, sha string }

func newScript(src string) *script {
	h := sha1.Sum([]byte(src))
	return &script{src: src, sha: hex.EncodeToString(h[:])}
}

// The scripts count time in microseconds since 2023-11-14 (1700000000 s
// after the Unix epoch), as Lua numbers (doubles): small enough that a
// double keeps fractions of a microsecond (about 16ns today, 30ns in
// 2030), so intervals need not be whole microseconds. A quota is stored
// with 3 decimals (nanoseconds). Older servers (before Redis 5) need
// redis.replicate_commands() to write after TIME; newer ones replicate
// effects always, and the call does nothing (or is missing: pcall).
const preamble = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1700000000) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
`

// reserve: ARGV interval (µs), burst, permits, maxWait (µs). It returns
// {granted, wait in ns} or, refused, {0, retry-after in ns}.
var reserve = newScript(preamble + `
local burst = tonumber(ARGV[2])
local permits = tonumber(ARGV[3])
local maxwait = tonumber(ARGV[4])
local tolerance = (burst - 1) * interval
local tat = tonumber(redis.call('GET', KEYS[1]))
if tat == nil or tat < now then tat = now end
local wait = tat - now - tolerance
local granted
if wait <= 0.001 then
  granted = math.floor((now + tolerance - tat) / interval + 0.000001) + 1
  if granted > permits then granted = permits end
  if granted < 1 then granted = 1 end
  wait = 0
elseif wait <= maxwait then
  granted = 1
else
  return {0, math.ceil(wait * 1000)}
end
tat = tat + granted * interval
redis.call('SET', KEYS[1], string.format('%.3f', tat), 'PX', math.ceil((tat - now) / 1000) + 1)
return {granted, math.ceil(wait * 1000)}
`)

// release: ARGV interval (µs), n. It moves the quota back by n intervals,
// never below now (a full bucket), and returns {1} ({0} for no quota).
var release = newScript(preamble + `
local n = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]))
if tat == nil then return {0} end
tat = tat - n * interval
if tat <= now then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], string.format('%.3f', tat), 'PX', math.ceil((tat - now) / 1000) + 1)
end
return {1}
`)
