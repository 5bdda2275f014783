package r4c_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/internal/testkit"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/bulkhead"
	"github.com/resilience4cata/r4c/policy/fallback"
	"github.com/resilience4cata/r4c/policy/hedge"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// propsFile writes lines to a .properties file in a temporary directory
// and returns its path; write rewrites it.
type propsFile struct {
	t    *testing.T
	path string
}

func newPropsFile(t *testing.T, lines ...string) *propsFile {
	f := &propsFile{t: t, path: filepath.Join(t.TempDir(), "r4c.properties")}
	f.write(lines...)
	return f
}

func (f *propsFile) write(lines ...string) {
	f.t.Helper()
	require.NoError(f.t, os.WriteFile(f.path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

// changed collects the ConfigChanged events of a registry.
type changed struct {
	mu  sync.Mutex
	evs []events.ConfigChanged
	ch  chan events.ConfigChanged
}

func watchChanges(t *testing.T, reg *r4c.Registry) *changed {
	c := &changed{ch: make(chan events.ConfigChanged, 64)}
	t.Cleanup(reg.Events().Subscribe(func(e events.Event) {
		if e, ok := e.(events.ConfigChanged); ok {
			c.mu.Lock()
			c.evs = append(c.evs, e)
			c.mu.Unlock()
			c.ch <- e
		}
	}))
	return c
}

func (c *changed) all() []events.ConfigChanged {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]events.ConfigChanged(nil), c.evs...)
}

func configErr(t *testing.T, err error) *r4c.ConfigError {
	t.Helper()
	var ce *r4c.ConfigError
	require.True(t, errors.As(err, &ce), "%v is not a *ConfigError", err)
	require.ErrorIs(t, err, r4c.ErrConfig)
	return ce
}

// A reloaded file changes each kind's running instance at the exact
// moment, under load: the rate from the next permit, a lower bulkhead and
// adaptive limit rejecting until the calls in flight drain, the breaker's
// threshold at the next evaluation, the retry's attempts at the next
// decision and the timeout from the next call.
func TestReloadFileChangesEveryKindUnderLoad(t *testing.T) {
	clk := clocktest.NewManualClock()
	f := newPropsFile(t,
		"instances.rl.rateLimit.limit=10", "instances.rl.rateLimit.burst=1",
		"instances.bh.bulkhead.maxConcurrent=3",
		"instances.al.adaptiveLimit.algorithm=aimd", "instances.al.adaptiveLimit.initialLimit=4", "instances.al.adaptiveLimit.maxLimit=10",
		"instances.cb.breaker.windowSize=10", "instances.cb.breaker.minimumCalls=10", "instances.cb.breaker.failureRateThreshold=0.5",
		"instances.rt.retry.maxAttempts=2", "instances.rt.retry.wait=0",
		"instances.to.timeout.timeout=1s", "instances.to.timeout.cooperative=true")
	reg, err := r4c.NewRegistry(r4c.WithClock(clk), r4c.WithPropertiesFile(f.path))
	require.NoError(t, err)
	rec := watchChanges(t, reg)
	ctx := context.Background()

	rlP, err := pipeline.NewBuilder[string](reg, "rl").RateLimit(nil).Build()
	require.NoError(t, err)
	bhP, err := pipeline.NewBuilder[string](reg, "bh").Bulkhead(nil).Build()
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "al").AdaptiveLimit(nil).Build()
	require.NoError(t, err)
	cbP, err := pipeline.NewBuilder[string](reg, "cb").Breaker(nil).Build()
	require.NoError(t, err)
	rtP, err := pipeline.NewBuilder[string](reg, "rt").Retry(nil).Build()
	require.NoError(t, err)
	toP, err := pipeline.NewBuilder[string](reg, "to").Timeout(nil).Build()
	require.NoError(t, err)

	// Load: a permit taken, 3 bulkhead calls and 4 adaptive slots held, 9
	// breaker calls recorded (4 failed).
	okFn := func(context.Context) (string, error) { return "ok", nil }
	boom := errors.New("boom")
	_, err = rlP.ExecuteContext(ctx, okFn)
	require.NoError(t, err)
	hold := make(chan struct{})
	var wg sync.WaitGroup
	entered := make(chan struct{}, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = bhP.ExecuteContext(ctx, func(context.Context) (string, error) {
				entered <- struct{}{}
				<-hold
				return "ok", nil
			})
		}()
		<-entered
	}
	al, err := reg.AdaptiveLimit("al")
	require.NoError(t, err)
	var permits []adaptivelimit.Permit
	for range 4 {
		p, ok := al.Limiter().TryAcquire()
		require.True(t, ok)
		permits = append(permits, p)
	}
	for i := range 9 {
		var e error
		if i < 4 {
			e = boom
		}
		_, _ = cbP.ExecuteContext(ctx, func(context.Context) (string, error) { return "", e })
	}

	clk.Advance(50 * time.Millisecond) // half a permit back
	f.write(
		"instances.rl.rateLimit.limit=1", "instances.rl.rateLimit.burst=1",
		"instances.bh.bulkhead.maxConcurrent=1",
		"instances.al.adaptiveLimit.algorithm=aimd", "instances.al.adaptiveLimit.initialLimit=2", "instances.al.adaptiveLimit.maxLimit=2",
		"instances.cb.breaker.windowSize=10", "instances.cb.breaker.minimumCalls=10", "instances.cb.breaker.failureRateThreshold=0.3",
		"instances.rt.retry.maxAttempts=4", "instances.rt.retry.wait=0",
		"instances.to.timeout.timeout=3s", "instances.to.timeout.cooperative=true")
	require.NoError(t, reg.Reload())

	// Rate: half a permit at 1/s is 500ms.
	rl, _ := reg.RateLimit("rl")
	assert.Equal(t, 500*time.Millisecond, rl.Limiter().RetryAfter())
	clk.Advance(500*time.Millisecond - time.Nanosecond)
	_, err = rlP.ExecuteContext(ctx, okFn)
	require.ErrorIs(t, err, ratelimit.ErrRateLimited)
	clk.Advance(time.Nanosecond)
	_, err = rlP.ExecuteContext(ctx, okFn)
	require.NoError(t, err, "the permit at the exact moment")

	// Bulkhead: 3 in flight, size 1.
	bh, _ := reg.Bulkhead("bh")
	assert.Equal(t, 3, bh.InFlight())
	_, err = bhP.ExecuteContext(ctx, okFn)
	require.ErrorIs(t, err, bulkhead.ErrFull)

	// Adaptive limit: 4 held, limit 2.
	assert.Equal(t, 2, al.Limit())
	_, ok := al.Limiter().TryAcquire()
	assert.False(t, ok)
	for i, p := range permits {
		al.Limiter().Release(p, adaptivelimit.OutcomeIgnore)
		_, ok := al.Limiter().TryAcquire()
		if i < 2 {
			assert.False(t, ok, "%d in flight, limit 2", 3-i)
		} else {
			assert.True(t, ok, "below the limit after %d ended", i+1)
			break
		}
	}

	// Breaker: the 10th call is the next evaluation: 4/10 >= 0.3.
	_, _ = cbP.ExecuteContext(ctx, okFn)
	cb, _ := reg.Breaker("cb")
	assert.Equal(t, breaker.StateOpen, cb.Snapshot().State)

	// Retry: 4 attempts.
	attempts := 0
	_, err = rtP.ExecuteContext(ctx, func(context.Context) (string, error) { attempts++; return "", boom })
	var ex *retry.ExhaustedError
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, 4, attempts)

	// Timeout: the next call gets 3s.
	res := make(chan error, 1)
	go func() {
		_, err := toP.ExecuteContext(ctx, func(ctx context.Context) (string, error) { <-ctx.Done(); return "", ctx.Err() })
		res <- err
	}()
	testkit.BlockUntil(t, clk, 1)
	clk.Advance(3*time.Second - time.Nanosecond)
	select {
	case err := <-res:
		t.Fatalf("timed out before 3s: %v", err)
	default:
	}
	clk.Advance(time.Nanosecond)
	select {
	case err := <-res:
		require.ErrorIs(t, err, timeout.ErrCallTimeout)
	case <-time.After(10 * time.Second):
		t.Fatal("no timeout at 3s")
	}

	close(hold)
	wg.Wait()
	assert.Equal(t, 0, bh.InFlight(), "no slot lost")

	byInstance := map[string][]string{}
	for _, e := range rec.all() {
		_, id := e.Source()
		byInstance[id] = e.Keys()
	}
	assert.Equal(t, map[string][]string{
		"rl": {"limit"}, "bh": {"maxConcurrent"}, "al": {"initialLimit", "maxLimit"},
		"cb": {"failureRateThreshold"}, "rt": {"maxAttempts"}, "to": {"timeout"},
	}, byInstance, "one event per instance changed, naming its keys")
}

// liveValues gives, for each kind and each of its keys, a value other than
// the default: the keys marked live take it at a reload, the others are
// refused with R4C-REG-011. A key added to a table without a line here
// fails TestEveryKeyReloadsOrIsRefused.
var liveValues = map[string]map[string]string{
	"rateLimit": {"enabled": "false", "limit": "20", "period": "2s", "burst": "7", "maxWait": "1s",
		"storeTimeout": "100ms", "fallback": "open", "fallbackShare": "0.5", "probeInterval": "2s", "lease": "5", "leaseFor": "2s"},
	"bulkhead": {"enabled": "false", "maxConcurrent": "5", "maxWait": "1s"},
	"adaptiveLimit": {"enabled": "false", "algorithm": "vegas", "initialLimit": "30", "minLimit": "5", "maxLimit": "150",
		"window": "2s", "minWindowSamples": "3", "smoothing": "0.5", "rttTolerance": "2", "longWindow": "100",
		"queueSize": "8", "backoffRatio": "0.8", "probeMultiplier": "20", "maxWait": "1s", "lowPriorityShare": "0.5",
		"latencyCeiling": "1s"},
	"breaker": {"enabled": "false", "windowType": "time-based", "windowSize": "50", "windowDuration": "30s",
		"minimumCalls": "7", "failureRateThreshold": "0.3", "slowCallRateThreshold": "0.7", "slowCallDuration": "3s",
		"openFor": "5s", "halfOpenCalls": "4", "maxHalfOpenWait": "2s"},
	"retry": {"enabled": "false", "maxAttempts": "5", "wait": "200ms", "multiplier": "2", "maxDelay": "5s",
		"jitter": "full", "budgetRatio": "0.2", "budgetWindow": "30s", "budgetMinRetries": "5"},
	"timeout":  {"enabled": "false", "timeout": "3s", "cooperative": "true"},
	"hedge":    {"enabled": "false", "delay": "2s", "maxHedged": "3"},
	"fallback": {"enabled": "false"},
}

type reloadKind struct {
	name  string
	keys  []policy.Key[struct{}] // only Name and Live are read
	build func(reg *r4c.Registry) error
	// config returns the instance's running configuration, formatted per key.
	config func(reg *r4c.Registry) map[string]string
}

func formatAll[C any](keys []policy.Key[C], c C) map[string]string {
	m := map[string]string{}
	for _, k := range keys {
		m[k.Name] = k.Format(&c)
	}
	return m
}

func keyNames[C any](keys []policy.Key[C]) []policy.Key[struct{}] {
	out := make([]policy.Key[struct{}], len(keys))
	for i, k := range keys {
		out[i] = policy.Key[struct{}]{Name: k.Name, Live: k.Live}
	}
	return out
}

func reloadKinds() []reloadKind {
	return []reloadKind{
		{"rateLimit", keyNames(ratelimit.Keys().Keys()),
			func(reg *r4c.Registry) error {
				_, err := pipeline.NewBuilder[string](reg, "x").RateLimit(nil).Build()
				return err
			},
			func(reg *r4c.Registry) map[string]string {
				h, _ := reg.RateLimit("x")
				return formatAll(ratelimit.Keys().Keys(), h.Config())
			}},
		{"bulkhead", keyNames(bulkhead.Keys().Keys()),
			func(reg *r4c.Registry) error {
				_, err := pipeline.NewBuilder[string](reg, "x").Bulkhead(nil).Build()
				return err
			},
			func(reg *r4c.Registry) map[string]string {
				h, _ := reg.Bulkhead("x")
				return formatAll(bulkhead.Keys().Keys(), h.Config())
			}},
		{"adaptiveLimit", keyNames(adaptivelimit.Keys().Keys()),
			func(reg *r4c.Registry) error {
				_, err := pipeline.NewBuilder[string](reg, "x").AdaptiveLimit(nil).Build()
				return err
			},
			func(reg *r4c.Registry) map[string]string {
				h, _ := reg.AdaptiveLimit("x")
				return formatAll(adaptivelimit.Keys().Keys(), h.Config())
			}},
		{"breaker", keyNames(breaker.Keys().Keys()),
			func(reg *r4c.Registry) error {
				_, err := pipeline.NewBuilder[string](reg, "x").Breaker(nil).Build()
				return err
			},
			func(reg *r4c.Registry) map[string]string {
				h, _ := reg.Breaker("x")
				return formatAll(breaker.Keys().Keys(), h.Config())
			}},
		{"retry", keyNames(retry.Keys().Keys()),
			func(reg *r4c.Registry) error {
				_, err := pipeline.NewBuilder[string](reg, "x").Retry(nil).Build()
				return err
			},
			func(reg *r4c.Registry) map[string]string {
				h, _ := reg.Retry("x")
				return formatAll(retry.Keys().Keys(), h.Config())
			}},
		{"timeout", keyNames(timeout.Keys().Keys()),
			func(reg *r4c.Registry) error {
				_, err := pipeline.NewBuilder[string](reg, "x").Timeout(nil).Build()
				return err
			},
			func(reg *r4c.Registry) map[string]string {
				h, _ := reg.Timeout("x")
				return formatAll(timeout.Keys().Keys(), h.Config())
			}},
		{"hedge", keyNames(hedge.Keys().Keys()),
			func(reg *r4c.Registry) error {
				_, err := pipeline.NewBuilder[string](reg, "x").Hedge(nil).Build()
				return err
			},
			func(reg *r4c.Registry) map[string]string {
				h, _ := reg.Hedge("x")
				return formatAll(hedge.Keys().Keys(), h.Config())
			}},
		{"fallback", keyNames(fallback.Keys().Keys()),
			func(reg *r4c.Registry) error {
				_, err := pipeline.NewBuilder[string](reg, "x").Fallback(func(c *fallback.Config) { c.Value = "v" }).Build()
				return err
			},
			func(reg *r4c.Registry) map[string]string {
				h, _ := reg.Fallback("x")
				return formatAll(fallback.Keys().Keys(), h.Config())
			}},
	}
}

// Every key of every kind, reloaded alone: a live key reaches the running
// instance (its Config) with one ConfigChanged naming it; any other is
// refused with R4C-REG-011 against the key as written, and nothing
// changes.
func TestEveryKeyReloadsOrIsRefused(t *testing.T) {
	for _, kc := range reloadKinds() {
		for _, k := range kc.keys {
			t.Run(kc.name+"."+k.Name, func(t *testing.T) {
				value, ok := liveValues[kc.name][k.Name]
				require.True(t, ok, "liveValues has no value for %s.%s", kc.name, k.Name)
				props := map[string]string{}
				reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()), r4c.WithProperties(props))
				require.NoError(t, err)
				require.NoError(t, kc.build(reg))
				rec := watchChanges(t, reg)
				before := kc.config(reg)
				require.NotEqual(t, value, before[k.Name], "pick a value other than the default")
				snap := reg.Snapshot()

				key := "instances.x." + kc.name + "." + k.Name
				props[key] = value
				err = reg.Reload()
				if !k.Live {
					ce := configErr(t, err)
					assert.Equal(t, r4c.CodeNotLive, ce.Code)
					assert.Equal(t, key, ce.Key)
					assert.Equal(t, value, ce.Value)
					assert.Contains(t, ce.Rule, "cannot change without a restart")
					assert.Equal(t, before, kc.config(reg))
					assert.Equal(t, snap, reg.Snapshot())
					assert.Empty(t, rec.all())
					return
				}
				require.NoError(t, err)
				after := kc.config(reg)
				assert.Equal(t, value, after[k.Name])
				evs := rec.all()
				require.Len(t, evs, 1)
				p, id := evs[0].Source()
				assert.Equal(t, "x", id)
				assert.Equal(t, strings.ToLower(strings.TrimSuffix(kc.name, "Limit")), strings.TrimSuffix(p, "limit"))
				assert.Contains(t, evs[0].Keys(), k.Name)
				for _, c := range evs[0].Changes {
					assert.Equal(t, before[c.Key], c.Old)
					assert.Equal(t, after[c.Key], c.New)
				}
				// The same sources again: nothing changes, nothing published.
				require.NoError(t, reg.Reload())
				assert.Len(t, rec.all(), 1)
			})
		}
	}
}

// snapshotAll is everything a reload could change, for comparison.
type snapshotAll struct {
	Snap    r4c.Snapshot
	Configs map[string]any
	Unused  []string
}

func takeAll(t *testing.T, reg *r4c.Registry) snapshotAll {
	al, err := reg.AdaptiveLimit("api")
	require.NoError(t, err)
	bh, err := reg.Bulkhead("api")
	require.NoError(t, err)
	rl, err := reg.RateLimit("api")
	require.NoError(t, err)
	cb, err := reg.Breaker("api")
	require.NoError(t, err)
	return snapshotAll{Snap: reg.Snapshot(), Unused: reg.UnusedKeys(), Configs: map[string]any{
		"al": al.Config(), "bh": bh.Config(), "rl": rl.Config(), "cb": cb.Config(),
	}}
}

// A reload with anything wrong returns its coded error and leaves every
// instance, what later builds resolve and the unused keys as they were,
// even the valid changes it carried.
func TestBadReloadChangesNothing(t *testing.T) {
	good := []string{
		"defaults.breaker.failureRateThreshold=0.5",
		"instances.api.adaptiveLimit.maxLimit=50",
		"instances.api.bulkhead.maxConcurrent=4",
		"instances.api.rateLimit.limit=10",
		"instances.typo.retry.maxAttempts=3",
	}
	f := newPropsFile(t, good...)
	reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()), r4c.WithPropertiesFile(f.path))
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "api").
		Breaker(nil).RateLimit(nil).AdaptiveLimit(nil).Bulkhead(nil).Build()
	require.NoError(t, err)
	rec := watchChanges(t, reg)
	before := takeAll(t, reg)
	require.Equal(t, []string{"instances.typo.retry.maxAttempts"}, before.Unused)

	// Each bad file also carries valid changes of live keys.
	valid := []string{"instances.api.adaptiveLimit.maxLimit=20", "instances.api.rateLimit.limit=5"}
	for _, tc := range []struct {
		name, line, code, key, value string
	}{
		{"out of range", "instances.api.bulkhead.maxConcurrent=0", r4c.CodeBoundBelowOne, "instances.api.bulkhead.maxConcurrent", "0"},
		{"bounds order", "instances.api.adaptiveLimit.minLimit=30", r4c.CodeBoundsOrder, "instances.api.adaptiveLimit.minLimit", "30"},
		{"syntax", "instances.api.rateLimit.period=1 sec", r4c.CodeDurationSyntax, "instances.api.rateLimit.period", "1 sec"},
		{"unknown key", "instances.api.bulkhead.maxConcurent=3", r4c.CodeUnknownKey, "instances.api.bulkhead.maxConcurent", "3"},
		{"unknown kind", "defaults.bulkhed.maxConcurrent=3", r4c.CodeUnknownKey, "defaults.bulkhed.maxConcurrent", "3"},
		{"defaults broken", "defaults.breaker.failureRateThreshold=50", r4c.CodeOutOfRange, "defaults.breaker.failureRateThreshold", "50"},
		{"named config broken", "configs.spare.retry.maxAttempts=0", r4c.CodeBoundBelowOne, "configs.spare.retry.maxAttempts", "0"},
		{"unknown base config", "instances.api.bulkhead.baseConfig=nope", r4c.CodeUnknownConfig, "instances.api.bulkhead.baseConfig", "nope"},
		{"not live", "instances.api.adaptiveLimit.algorithm=vegas", r4c.CodeNotLive, "instances.api.adaptiveLimit.algorithm", "vegas"},
		{"not live through the defaults", "defaults.breaker.windowSize=20", r4c.CodeNotLive, "defaults.breaker.windowSize", "20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.write(append(append(append([]string(nil), good...), valid...), tc.line)...)
			ce := configErr(t, reg.Reload())
			assert.Equal(t, tc.code, ce.Code, "%v", ce)
			assert.Equal(t, tc.key, ce.Key)
			assert.Equal(t, tc.value, ce.Value)
			assert.True(t, strings.HasPrefix(ce.Error(), tc.code+" "+tc.key), ce.Error())
			assert.Equal(t, before, takeAll(t, reg))
			assert.Empty(t, rec.all())
		})
	}
	// A file that cannot be read.
	require.NoError(t, os.Remove(f.path))
	assert.Equal(t, r4c.CodeSource, configErr(t, reg.Reload()).Code)
	assert.Equal(t, before, takeAll(t, reg))

	// A pipeline built after a refused reload resolves the old values.
	f.write(append(append([]string(nil), good...), "instances.api.adaptiveLimit.algorithm=vegas")...)
	require.Error(t, reg.Reload())
	_, err = pipeline.NewBuilder[string](reg, "other").AdaptiveLimit(func(c *adaptivelimit.Config) { c.Name = "api" }).Build()
	require.NoError(t, err, "the shared instance still resolves to the configuration in force")

	// Then a good reload applies.
	f.write(append(append([]string(nil), good...), valid...)...)
	require.NoError(t, reg.Reload())
	al, _ := reg.AdaptiveLimit("api")
	assert.Equal(t, 20, al.Config().MaxLimit)
	assert.Len(t, rec.all(), 2)
}

// A value set through a handle stays until its key changes in a source.
func TestSetterSurvivesUnrelatedReload(t *testing.T) {
	props := map[string]string{"instances.api.rateLimit.limit": "10", "instances.api.rateLimit.maxWait": "0"}
	reg, err := r4c.NewRegistry(r4c.WithClock(clocktest.NewManualClock()), r4c.WithProperties(props))
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "api").RateLimit(nil).Build()
	require.NoError(t, err)
	h, _ := reg.RateLimit("api")
	require.NoError(t, h.SetLimit(100))
	props["instances.api.rateLimit.maxWait"] = "1s"
	require.NoError(t, reg.Reload())
	assert.Equal(t, 100, h.Config().Limit, "the setter's value stays")
	assert.Equal(t, time.Second, h.Config().MaxWait)
	props["instances.api.rateLimit.limit"] = "20"
	require.NoError(t, reg.Reload())
	assert.Equal(t, 20, h.Config().Limit, "the source changed the key")
}

// The environment is read again at each reload.
func TestReloadReadsTheEnvironmentAgain(t *testing.T) {
	t.Setenv("R4C_INSTANCES_ORDER_API_BULKHEAD_MAXCONCURRENT", "3")
	reg, err := r4c.NewRegistry(r4c.WithEnvironment())
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "order-api").Bulkhead(nil).Build()
	require.NoError(t, err)
	h, _ := reg.Bulkhead("order-api")
	assert.Equal(t, 3, h.MaxConcurrent())
	t.Setenv("R4C_INSTANCES_ORDER_API_BULKHEAD_MAXCONCURRENT", "7")
	require.NoError(t, reg.Reload())
	assert.Equal(t, 7, h.MaxConcurrent())
	t.Setenv("R4C_INSTANCES_ORDER_API_BULKHEAD_MAXWAIT", "1s")
	ce := configErr(t, reg.Reload())
	assert.Equal(t, r4c.CodeNotLive, ce.Code)
	assert.Equal(t, "R4C_INSTANCES_ORDER_API_BULKHEAD_MAXWAIT", ce.Key)
	assert.Equal(t, 7, h.MaxConcurrent())
}

// Pipelines sharing an instance must still agree after a reload; removing
// the external value that made them agree is refused.
func TestReloadKeepsSharedInstancesConsistent(t *testing.T) {
	props := map[string]string{"instances.db.bulkhead.maxConcurrent": "9"}
	reg, err := r4c.NewRegistry(r4c.WithProperties(props))
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "a").Bulkhead(func(c *bulkhead.Config) { c.Name = "db"; c.MaxConcurrent = 2 }).Build()
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "b").Bulkhead(func(c *bulkhead.Config) { c.Name = "db"; c.MaxConcurrent = 3 }).Build()
	require.NoError(t, err)
	rec := watchChanges(t, reg)
	props["instances.db.bulkhead.maxConcurrent"] = "5"
	require.NoError(t, reg.Reload())
	h, _ := reg.Bulkhead("db")
	assert.Equal(t, 5, h.MaxConcurrent())
	assert.Len(t, rec.all(), 1, "one instance, one event")
	delete(props, "instances.db.bulkhead.maxConcurrent")
	ce := configErr(t, reg.Reload())
	assert.Equal(t, r4c.CodeSharedMismatch, ce.Code)
	assert.Equal(t, 5, h.MaxConcurrent())
}

func TestWatcherPollsOnTheRegistryClock(t *testing.T) {
	clk := clocktest.NewManualClock()
	f := newPropsFile(t, "instances.api.bulkhead.maxConcurrent=2")
	reg, err := r4c.NewRegistry(r4c.WithClock(clk), r4c.WithPropertiesFile(f.path))
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "api").Bulkhead(nil).Build()
	require.NoError(t, err)
	rec := watchChanges(t, reg)
	h, _ := reg.Bulkhead("api")

	_, err = reg.NewWatcher(0, nil)
	assert.Equal(t, r4c.CodeNegativeDuration, configErr(t, err).Code)

	errs := make(chan error, 8)
	w, err := reg.NewWatcher(time.Second, func(err error) { errs <- err })
	require.NoError(t, err)
	assert.Zero(t, clk.Pending(), "no goroutine, no timer before Start")
	reloaded, err := w.Poll()
	require.NoError(t, err)
	assert.False(t, reloaded, "nothing changed")

	w.Start()
	w.Start() // harmless
	testkit.BlockUntil(t, clk, 1)
	f.write("instances.api.bulkhead.maxConcurrent=6")
	assert.Equal(t, 2, h.MaxConcurrent(), "not before the poll")
	clk.Advance(time.Second)
	select {
	case e := <-rec.ch:
		assert.Equal(t, []events.KeyChange{{Key: "maxConcurrent", Old: "2", New: "6"}}, e.Changes)
	case <-time.After(10 * time.Second):
		t.Fatal("no reload after the poll")
	}
	assert.Equal(t, 6, h.MaxConcurrent())

	f.write("instances.api.bulkhead.maxConcurrent=0")
	testkit.BlockUntil(t, clk, 1)
	clk.Advance(time.Second)
	select {
	case err := <-errs:
		assert.Equal(t, r4c.CodeBoundBelowOne, configErr(t, err).Code)
	case <-time.After(10 * time.Second):
		t.Fatal("the failed reload was not reported")
	}
	// The same bad text is not tried again.
	for range 3 {
		testkit.BlockUntil(t, clk, 1)
		clk.Advance(time.Second)
	}
	testkit.BlockUntil(t, clk, 1)
	w.Stop()
	w.Stop()
	assert.Empty(t, errs)
	assert.Equal(t, 6, h.MaxConcurrent())
	assert.Zero(t, clk.Pending(), "the timer is stopped")

	// Poll without the goroutine.
	f.write("instances.api.bulkhead.maxConcurrent=8")
	reloaded, err = w.Poll()
	require.NoError(t, err)
	assert.True(t, reloaded)
	assert.Equal(t, 8, h.MaxConcurrent())
}

// Every kind's keys appear in liveValues, sorted for a stable failure.
func TestLiveValuesCoverEveryKey(t *testing.T) {
	for _, kc := range reloadKinds() {
		var missing []string
		for _, k := range kc.keys {
			if _, ok := liveValues[kc.name][k.Name]; !ok {
				missing = append(missing, k.Name)
			}
		}
		sort.Strings(missing)
		assert.Empty(t, missing, kc.name)
	}
}

// A listener of ConfigChanged may use the registry: Reload holds no lock
// while instances publish.
func TestReloadListenerMayUseTheRegistry(t *testing.T) {
	props := map[string]string{"instances.api.bulkhead.maxConcurrent": "2"}
	reg, err := r4c.NewRegistry(r4c.WithProperties(props))
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "api").Bulkhead(nil).Build()
	require.NoError(t, err)
	var seen []int
	stop := reg.Events().Subscribe(func(e events.Event) {
		if _, ok := e.(events.ConfigChanged); ok {
			seen = append(seen, reg.Snapshot().Bulkheads["api"].MaxConcurrent)
			_, err := pipeline.NewBuilder[string](reg, "other").Bulkhead(nil).Build()
			assert.NoError(t, err)
		}
	})
	defer stop()
	props["instances.api.bulkhead.maxConcurrent"] = "5"
	done := make(chan error, 1)
	go func() { done <- reg.Reload() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Reload deadlocked with a listener that uses the registry")
	}
	assert.Equal(t, []int{5}, seen)
}

// A source that cannot be read is reported once, until it changes.
func TestWatcherReportsAnUnreadableSourceOnce(t *testing.T) {
	f := newPropsFile(t, "instances.api.bulkhead.maxConcurrent=2")
	reg, err := r4c.NewRegistry(r4c.WithPropertiesFile(f.path))
	require.NoError(t, err)
	var reported []string
	w, err := reg.NewWatcher(time.Second, func(err error) { reported = append(reported, configErr(t, err).Code) })
	require.NoError(t, err)
	require.NoError(t, os.Remove(f.path))
	for range 3 {
		_, err := w.Poll()
		assert.Equal(t, r4c.CodeSource, configErr(t, err).Code)
	}
	assert.Equal(t, []string{r4c.CodeSource}, reported)
	f.write("instances.api.bulkhead.maxConcurrent=2")
	reloaded, err := w.Poll()
	require.NoError(t, err)
	assert.False(t, reloaded, "back as it was: nothing to reload")
}

// A change to the defaults or a named configuration reaches every
// instance that resolves through it, and no other.
func TestReloadThroughDefaultsAndNamedConfigs(t *testing.T) {
	props := map[string]string{
		"defaults.bulkhead.maxConcurrent":      "10",
		"configs.small.bulkhead.maxConcurrent": "2",
		"instances.c.bulkhead.maxConcurrent":   "7",
	}
	reg, err := r4c.NewRegistry(r4c.WithProperties(props))
	require.NoError(t, err)
	for _, p := range []struct{ name, base string }{{"a", ""}, {"b", "small"}, {"c", ""}} {
		_, err := pipeline.NewBuilder[string](reg, p.name).Bulkhead(func(c *bulkhead.Config) { c.BaseConfig = p.base }).Build()
		require.NoError(t, err)
	}
	rec := watchChanges(t, reg)
	props["defaults.bulkhead.maxConcurrent"] = "20"
	props["configs.small.bulkhead.maxConcurrent"] = "3"
	require.NoError(t, reg.Reload())
	got := map[string]int{}
	for id, s := range reg.Snapshot().Bulkheads {
		got[id] = s.MaxConcurrent
	}
	assert.Equal(t, map[string]int{"a": 20, "b": 3, "c": 7}, got)
	var ids []string
	for _, e := range rec.all() {
		ids = append(ids, e.Instance)
	}
	sort.Strings(ids)
	assert.Equal(t, []string{"a", "b"}, ids)
}
