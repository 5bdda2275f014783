package r4cprometheus_test

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c"
	"github.com/resilience4cata/r4c/events"
	r4cprometheus "github.com/resilience4cata/r4c/metrics/prometheus"
	"github.com/resilience4cata/r4c/pipeline"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
	"github.com/resilience4cata/r4c/policy/breaker"
	"github.com/resilience4cata/r4c/policy/ratelimit"
	"github.com/resilience4cata/r4c/policy/retry"
)

// exposition gathers c through a pedantic registry (which checks that
// Collect agrees with Describe) and returns the text format of the families
// named, or of every family when none is named.
func exposition(t testing.TB, c prometheus.Collector, names ...string) string {
	t.Helper()
	pr := prometheus.NewPedanticRegistry()
	require.NoError(t, pr.Register(c))
	mfs, err := pr.Gather()
	require.NoError(t, err)
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if len(names) == 0 || slices.Contains(names, mf.GetName()) {
			require.NoError(t, enc.Encode(mf))
		}
	}
	return b.String()
}

// wantScenario is the whole exposition after pipelines.run: see run for
// where each figure comes from.
const wantScenario = `# HELP r4c_adaptivelimit_concurrent_calls Calls holding a slot of the adaptive limit.
# TYPE r4c_adaptivelimit_concurrent_calls gauge
r4c_adaptivelimit_concurrent_calls{instance="search"} 0
# HELP r4c_adaptivelimit_drops_total Calls recorded as drops (overload signals) by the adaptive limit.
# TYPE r4c_adaptivelimit_drops_total counter
r4c_adaptivelimit_drops_total{instance="search"} 0
# HELP r4c_adaptivelimit_estimated_limit The algorithm's estimate of the limit (fractional for Gradient2 and Vegas).
# TYPE r4c_adaptivelimit_estimated_limit gauge
r4c_adaptivelimit_estimated_limit{instance="search"} 2
# HELP r4c_adaptivelimit_limit Current limit of the adaptive limit: how many calls may hold a slot at once.
# TYPE r4c_adaptivelimit_limit gauge
r4c_adaptivelimit_limit{instance="search"} 2
# HELP r4c_adaptivelimit_limit_changes_total Times the adaptive limit moved at the end of a window.
# TYPE r4c_adaptivelimit_limit_changes_total counter
r4c_adaptivelimit_limit_changes_total{instance="search"} 1
# HELP r4c_adaptivelimit_max_limit Upper bound of the adaptive limit.
# TYPE r4c_adaptivelimit_max_limit gauge
r4c_adaptivelimit_max_limit{instance="search"} 10
# HELP r4c_adaptivelimit_min_limit Lower bound of the adaptive limit.
# TYPE r4c_adaptivelimit_min_limit gauge
r4c_adaptivelimit_min_limit{instance="search"} 1
# HELP r4c_adaptivelimit_waiting_calls Calls waiting for a slot of the adaptive limit (MaxWait).
# TYPE r4c_adaptivelimit_waiting_calls gauge
r4c_adaptivelimit_waiting_calls{instance="search"} 0
# HELP r4c_adaptivelimit_window_latency_seconds Average latency of the adaptive limit's last completed window.
# TYPE r4c_adaptivelimit_window_latency_seconds gauge
r4c_adaptivelimit_window_latency_seconds{instance="search"} 1
# HELP r4c_adaptivelimit_window_max_concurrent_calls Most calls in flight during the adaptive limit's last completed window.
# TYPE r4c_adaptivelimit_window_max_concurrent_calls gauge
r4c_adaptivelimit_window_max_concurrent_calls{instance="search"} 1
# HELP r4c_adaptivelimit_windows_total Windows the adaptive limit completed (each recomputed the limit).
# TYPE r4c_adaptivelimit_windows_total counter
r4c_adaptivelimit_windows_total{instance="search"} 1
# HELP r4c_breaker_buffered_calls Calls in the breaker's current window (closed) or trial calls that ended (half-open).
# TYPE r4c_breaker_buffered_calls gauge
r4c_breaker_buffered_calls{instance="payments"} 0
# HELP r4c_breaker_calls_total Calls the breaker recorded (successes and failures) since it was built or reset.
# TYPE r4c_breaker_calls_total counter
r4c_breaker_calls_total{instance="payments"} 2
# HELP r4c_breaker_state State of the circuit breaker: 1 for the current state, 0 for the others.
# TYPE r4c_breaker_state gauge
r4c_breaker_state{instance="payments",state="closed"} 0
r4c_breaker_state{instance="payments",state="disabled"} 0
r4c_breaker_state{instance="payments",state="forced-open"} 0
r4c_breaker_state{instance="payments",state="half-open"} 0
r4c_breaker_state{instance="payments",state="open"} 1
# HELP r4c_bulkhead_concurrent_calls Calls holding a slot of the bulkhead.
# TYPE r4c_bulkhead_concurrent_calls gauge
r4c_bulkhead_concurrent_calls{instance="orders"} 0
# HELP r4c_bulkhead_max_concurrent_calls Slots of the bulkhead.
# TYPE r4c_bulkhead_max_concurrent_calls gauge
r4c_bulkhead_max_concurrent_calls{instance="orders"} 1
# HELP r4c_bulkhead_waiting_calls Calls waiting for a slot of the bulkhead (MaxWait).
# TYPE r4c_bulkhead_waiting_calls gauge
r4c_bulkhead_waiting_calls{instance="orders"} 0
# HELP r4c_calls_rejected_total Calls a policy refused without running them, by policy kind and instance.
# TYPE r4c_calls_rejected_total counter
r4c_calls_rejected_total{instance="orders",kind="bulkhead"} 1
r4c_calls_rejected_total{instance="payments",kind="breaker"} 1
r4c_calls_rejected_total{instance="quotes",kind="ratelimit"} 1
r4c_calls_rejected_total{instance="search",kind="adaptivelimit"} 1
# HELP r4c_fallback_calls_total Calls that went through the fallback.
# TYPE r4c_fallback_calls_total counter
r4c_fallback_calls_total{instance="flaky"} 1
# HELP r4c_fallback_func_failures_total Handled calls whose fallback function failed.
# TYPE r4c_fallback_func_failures_total counter
r4c_fallback_func_failures_total{instance="flaky"} 0
# HELP r4c_fallback_handled_total Calls whose error the fallback handled.
# TYPE r4c_fallback_handled_total counter
r4c_fallback_handled_total{instance="flaky"} 1
# HELP r4c_hedge_calls_total Calls the hedge ran.
# TYPE r4c_hedge_calls_total counter
r4c_hedge_calls_total{instance="hedged"} 1
# HELP r4c_hedge_rejection_stops_total Calls in which an inner policy's rejection stopped the hedge from starting more attempts.
# TYPE r4c_hedge_rejection_stops_total counter
r4c_hedge_rejection_stops_total{instance="hedged"} 0
# HELP r4c_hedge_started_total Extra attempts the hedge started.
# TYPE r4c_hedge_started_total counter
r4c_hedge_started_total{instance="hedged"} 1
# HELP r4c_hedge_wins_total Calls won by an extra attempt rather than the first one.
# TYPE r4c_hedge_wins_total counter
r4c_hedge_wins_total{instance="hedged"} 1
# HELP r4c_pipeline_call_duration_seconds Latency of the calls a pipeline admitted (every outcome but rejected), from entry to end, retries and their waits included.
# TYPE r4c_pipeline_call_duration_seconds histogram
r4c_pipeline_call_duration_seconds_bucket{outcome="failure",pipeline="payments",le="0.1"} 2
r4c_pipeline_call_duration_seconds_bucket{outcome="failure",pipeline="payments",le="1"} 2
r4c_pipeline_call_duration_seconds_bucket{outcome="failure",pipeline="payments",le="+Inf"} 2
r4c_pipeline_call_duration_seconds_sum{outcome="failure",pipeline="payments"} 0
r4c_pipeline_call_duration_seconds_count{outcome="failure",pipeline="payments"} 2
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="flaky",le="0.1"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="flaky",le="1"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="flaky",le="+Inf"} 1
r4c_pipeline_call_duration_seconds_sum{outcome="success",pipeline="flaky"} 0.1
r4c_pipeline_call_duration_seconds_count{outcome="success",pipeline="flaky"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="hedged",le="0.1"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="hedged",le="1"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="hedged",le="+Inf"} 1
r4c_pipeline_call_duration_seconds_sum{outcome="success",pipeline="hedged"} 0.1
r4c_pipeline_call_duration_seconds_count{outcome="success",pipeline="hedged"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="orders",le="0.1"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="orders",le="1"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="orders",le="+Inf"} 1
r4c_pipeline_call_duration_seconds_sum{outcome="success",pipeline="orders"} 0
r4c_pipeline_call_duration_seconds_count{outcome="success",pipeline="orders"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="quotes",le="0.1"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="quotes",le="1"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="quotes",le="+Inf"} 1
r4c_pipeline_call_duration_seconds_sum{outcome="success",pipeline="quotes"} 0
r4c_pipeline_call_duration_seconds_count{outcome="success",pipeline="quotes"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="search",le="0.1"} 0
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="search",le="1"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="success",pipeline="search",le="+Inf"} 1
r4c_pipeline_call_duration_seconds_sum{outcome="success",pipeline="search"} 1
r4c_pipeline_call_duration_seconds_count{outcome="success",pipeline="search"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="timeout",pipeline="slow",le="0.1"} 0
r4c_pipeline_call_duration_seconds_bucket{outcome="timeout",pipeline="slow",le="1"} 1
r4c_pipeline_call_duration_seconds_bucket{outcome="timeout",pipeline="slow",le="+Inf"} 1
r4c_pipeline_call_duration_seconds_sum{outcome="timeout",pipeline="slow"} 1
r4c_pipeline_call_duration_seconds_count{outcome="timeout",pipeline="slow"} 1
# HELP r4c_pipeline_calls_total Calls that ended through a pipeline, by outcome (success, failure, timeout, rejected, cancelled) and, for rejected calls, the kind of the policy that rejected them.
# TYPE r4c_pipeline_calls_total counter
r4c_pipeline_calls_total{outcome="failure",pipeline="payments",rejected_by=""} 2
r4c_pipeline_calls_total{outcome="rejected",pipeline="orders",rejected_by="bulkhead"} 1
r4c_pipeline_calls_total{outcome="rejected",pipeline="payments",rejected_by="breaker"} 1
r4c_pipeline_calls_total{outcome="rejected",pipeline="quotes",rejected_by="ratelimit"} 1
r4c_pipeline_calls_total{outcome="rejected",pipeline="search",rejected_by="adaptivelimit"} 1
r4c_pipeline_calls_total{outcome="success",pipeline="flaky",rejected_by=""} 1
r4c_pipeline_calls_total{outcome="success",pipeline="hedged",rejected_by=""} 1
r4c_pipeline_calls_total{outcome="success",pipeline="orders",rejected_by=""} 1
r4c_pipeline_calls_total{outcome="success",pipeline="quotes",rejected_by=""} 1
r4c_pipeline_calls_total{outcome="success",pipeline="search",rejected_by=""} 1
r4c_pipeline_calls_total{outcome="timeout",pipeline="slow",rejected_by=""} 1
# HELP r4c_policy_calls_total Calls a policy instance saw end in an outcome of its own kind: dropped, ignored, rejected, failure, timed_out, retried, hedged, fallback.
# TYPE r4c_policy_calls_total counter
r4c_policy_calls_total{instance="flaky",kind="fallback",outcome="fallback"} 1
r4c_policy_calls_total{instance="flaky",kind="retry",outcome="retried"} 1
r4c_policy_calls_total{instance="hedged",kind="hedge",outcome="hedged"} 1
r4c_policy_calls_total{instance="orders",kind="bulkhead",outcome="rejected"} 1
r4c_policy_calls_total{instance="payments",kind="breaker",outcome="failure"} 2
r4c_policy_calls_total{instance="payments",kind="breaker",outcome="ignored"} 0
r4c_policy_calls_total{instance="payments",kind="breaker",outcome="rejected"} 1
r4c_policy_calls_total{instance="quotes",kind="ratelimit",outcome="rejected"} 1
r4c_policy_calls_total{instance="search",kind="adaptivelimit",outcome="dropped"} 0
r4c_policy_calls_total{instance="search",kind="adaptivelimit",outcome="ignored"} 0
r4c_policy_calls_total{instance="search",kind="adaptivelimit",outcome="rejected"} 1
r4c_policy_calls_total{instance="slow",kind="timeout",outcome="timed_out"} 1
# HELP r4c_ratelimit_available_permits Permits of the rate limiter that could be taken now.
# TYPE r4c_ratelimit_available_permits gauge
r4c_ratelimit_available_permits{instance="quotes"} 1
# HELP r4c_ratelimit_burst_permits Most permits of the rate limiter that can be taken at once.
# TYPE r4c_ratelimit_burst_permits gauge
r4c_ratelimit_burst_permits{instance="quotes"} 1
# HELP r4c_retry_calls_total Calls that ended through the retry, by outcome.
# TYPE r4c_retry_calls_total counter
r4c_retry_calls_total{instance="flaky",outcome="budget_rejected"} 0
r4c_retry_calls_total{instance="flaky",outcome="cancelled"} 0
r4c_retry_calls_total{instance="flaky",outcome="exhausted"} 1
r4c_retry_calls_total{instance="flaky",outcome="failure_with_retry"} 0
r4c_retry_calls_total{instance="flaky",outcome="failure_without_retry"} 0
r4c_retry_calls_total{instance="flaky",outcome="success_with_retry"} 0
r4c_retry_calls_total{instance="flaky",outcome="success_without_retry"} 0
# HELP r4c_retry_retries_total Retry attempts started (attempts after the first).
# TYPE r4c_retry_retries_total counter
r4c_retry_retries_total{instance="flaky"} 1
# HELP r4c_timeout_duration_seconds Configured timeout.
# TYPE r4c_timeout_duration_seconds gauge
r4c_timeout_duration_seconds{instance="slow"} 1
# HELP r4c_timeout_timeouts_total Calls whose deadline fired before they returned.
# TYPE r4c_timeout_timeouts_total counter
r4c_timeout_timeouts_total{instance="slow"} 1
`

func TestScenarioExportsEveryPolicy(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	c := r4cprometheus.NewCollector(reg, r4cprometheus.WithBuckets(0.1, 1))
	defer c.Close()
	p.Run(t)
	got := exposition(t, c)
	if os.Getenv("R4C_PRINT_SCENARIO") != "" {
		t.Log("\n" + got)
	}
	assert.Equal(t, wantScenario, got)
}

func TestScenarioPassesLint(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()
	p.Run(t)
	problems, err := testutil.CollectAndLint(c)
	require.NoError(t, err)
	assert.Empty(t, problems)
}

func TestEventCountersStartAtZero(t *testing.T) {
	clk, reg := newRegistry(t)
	build(t, clk, reg)
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()
	want := `# HELP r4c_adaptivelimit_limit_changes_total Times the adaptive limit moved at the end of a window.
# TYPE r4c_adaptivelimit_limit_changes_total counter
r4c_adaptivelimit_limit_changes_total{instance="search"} 0
# HELP r4c_calls_rejected_total Calls a policy refused without running them, by policy kind and instance.
# TYPE r4c_calls_rejected_total counter
r4c_calls_rejected_total{instance="orders",kind="bulkhead"} 0
r4c_calls_rejected_total{instance="payments",kind="breaker"} 0
r4c_calls_rejected_total{instance="quotes",kind="ratelimit"} 0
r4c_calls_rejected_total{instance="search",kind="adaptivelimit"} 0
`
	assert.Equal(t, want, exposition(t, c, "r4c_calls_rejected_total", "r4c_adaptivelimit_limit_changes_total"))
}

func TestInstancesBuiltLaterAppearAtTheNextScrape(t *testing.T) {
	_, reg := newRegistry(t)
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()
	assert.Empty(t, exposition(t, c), "an empty registry exports nothing")

	p, err := pipeline.NewBuilder[string](reg, "late").
		AdaptiveLimit(func(c *adaptivelimit.Config) { c.InitialLimit = 7 }).Build()
	require.NoError(t, err)
	_, err = p.Execute(ok)
	require.NoError(t, err)
	want := `# HELP r4c_adaptivelimit_limit Current limit of the adaptive limit: how many calls may hold a slot at once.
# TYPE r4c_adaptivelimit_limit gauge
r4c_adaptivelimit_limit{instance="late"} 7
# HELP r4c_calls_rejected_total Calls a policy refused without running them, by policy kind and instance.
# TYPE r4c_calls_rejected_total counter
r4c_calls_rejected_total{instance="late",kind="adaptivelimit"} 0
`
	assert.Equal(t, want, exposition(t, c, "r4c_adaptivelimit_limit", "r4c_calls_rejected_total"))
}

func TestOptionalFigures(t *testing.T) {
	_, reg := newRegistry(t)
	for name, alg := range map[string]adaptivelimit.Algorithm{"g": adaptivelimit.Gradient2, "a": adaptivelimit.AIMD, "v": adaptivelimit.Vegas} {
		_, err := pipeline.NewBuilder[string](reg, name).
			AdaptiveLimit(func(c *adaptivelimit.Config) { c.Algorithm = alg }).Build()
		require.NoError(t, err)
	}
	br, err := pipeline.NewBuilder[string](reg, "br").
		Breaker(func(c *breaker.Config) { c.MinimumCalls, c.WindowSize = 4, 4 }).Build()
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "budget").
		Retry(func(c *retry.Config) { c.BudgetRatio = 0.5; c.BudgetMinRetries = 3 }).Build()
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "plain").Retry(func(c *retry.Config) {}).Build()
	require.NoError(t, err)
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()

	names := []string{"r4c_adaptivelimit_long_latency_seconds", "r4c_adaptivelimit_noload_latency_seconds",
		"r4c_breaker_failure_ratio", "r4c_breaker_slow_call_ratio", "r4c_retry_budget_available"}
	want := `# HELP r4c_adaptivelimit_long_latency_seconds Gradient2's long-term average latency after the last window.
# TYPE r4c_adaptivelimit_long_latency_seconds gauge
r4c_adaptivelimit_long_latency_seconds{instance="g"} 0
# HELP r4c_adaptivelimit_noload_latency_seconds Vegas's latency without queueing.
# TYPE r4c_adaptivelimit_noload_latency_seconds gauge
r4c_adaptivelimit_noload_latency_seconds{instance="v"} 0
# HELP r4c_retry_budget_available Retries the retry budget allows now; absent without a budget.
# TYPE r4c_retry_budget_available gauge
r4c_retry_budget_available{instance="budget"} 3
`
	assert.Equal(t, want, exposition(t, c, names...), "the breaker has too few calls for its rates")

	_, err = br.Execute(func() (string, error) { return "", errBackend })
	require.Error(t, err)
	for range 3 {
		_, err = br.Execute(ok)
		require.NoError(t, err)
	}
	want = `# HELP r4c_breaker_failure_ratio Failed calls among the calls the breaker judges on (0 to 1); absent while too few.
# TYPE r4c_breaker_failure_ratio gauge
r4c_breaker_failure_ratio{instance="br"} 0.25
# HELP r4c_breaker_slow_call_ratio Slow calls among the calls the breaker judges on (0 to 1); absent while too few.
# TYPE r4c_breaker_slow_call_ratio gauge
r4c_breaker_slow_call_ratio{instance="br"} 0
`
	assert.Equal(t, want, exposition(t, c, "r4c_breaker_failure_ratio", "r4c_breaker_slow_call_ratio"))
}

func TestCloseStopsTheEventCounters(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	c := r4cprometheus.NewCollector(reg)
	require.True(t, reg.Events().Active(), "the collector listens")

	hold := holdSlot(t, p.Orders)
	_, err := p.Orders.Execute(ok)
	require.Error(t, err)
	c.Close()
	c.Close() // idempotent
	assert.False(t, reg.Events().Active(), "Close removed the listener")
	_, err = p.Orders.Execute(ok)
	require.Error(t, err)
	hold()

	want := `# HELP r4c_calls_rejected_total Calls a policy refused without running them, by policy kind and instance.
# TYPE r4c_calls_rejected_total counter
r4c_calls_rejected_total{instance="orders",kind="bulkhead"} 1
r4c_calls_rejected_total{instance="payments",kind="breaker"} 0
r4c_calls_rejected_total{instance="quotes",kind="ratelimit"} 0
r4c_calls_rejected_total{instance="search",kind="adaptivelimit"} 0
`
	assert.Equal(t, want, exposition(t, c, "r4c_calls_rejected_total"), "the second rejection came after Close")
}

func TestConstLabelsSeparateRegistries(t *testing.T) {
	var regs [2]*r4c.Registry
	for i := range regs {
		clk, reg := newRegistry(t)
		build(t, clk, reg)
		regs[i] = reg
	}
	a := r4cprometheus.NewCollector(regs[0], r4cprometheus.WithConstLabels(prometheus.Labels{"registry": "a"}))
	defer a.Close()
	b := r4cprometheus.NewCollector(regs[1], r4cprometheus.WithConstLabels(prometheus.Labels{"registry": "b"}))
	defer b.Close()
	pr := prometheus.NewPedanticRegistry()
	require.NoError(t, pr.Register(a))
	require.NoError(t, pr.Register(b))
	mfs, err := pr.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == "r4c_bulkhead_max_concurrent_calls" {
			require.Len(t, mf.GetMetric(), 2)
			var got []string
			for _, m := range mf.GetMetric() {
				got = append(got, m.String())
			}
			assert.Contains(t, got[0], `value:"a"`)
			assert.Contains(t, got[1], `value:"b"`)
		}
	}

	plain := r4cprometheus.NewCollector(regs[1])
	defer plain.Close()
	require.Error(t, pr.Register(plain), "the same metrics without a distinguishing label clash")
}

func TestConstLabelsMayNotShadowVariableLabels(t *testing.T) {
	_, reg := newRegistry(t)
	c := r4cprometheus.NewCollector(reg, r4cprometheus.WithConstLabels(prometheus.Labels{"instance": "x"}))
	defer c.Close()
	require.Error(t, prometheus.NewRegistry().Register(c))
}

func TestOtherEventsAreNotCounted(t *testing.T) {
	_, reg := newRegistry(t)
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()
	reg.Events().Publish(events.Timeout{Instance: "t"})
	reg.Events().Publish(events.BreakerStateChanged{Instance: "b", From: "closed", To: "open"})
	reg.Events().Publish(events.CallRejected{Policy: "custom", Instance: "mine"})
	reg.Events().Publish(events.LimitChanged{Instance: "standalone", OldLimit: 1, NewLimit: 2})
	want := `# HELP r4c_adaptivelimit_limit_changes_total Times the adaptive limit moved at the end of a window.
# TYPE r4c_adaptivelimit_limit_changes_total counter
r4c_adaptivelimit_limit_changes_total{instance="standalone"} 1
# HELP r4c_calls_rejected_total Calls a policy refused without running them, by policy kind and instance.
# TYPE r4c_calls_rejected_total counter
r4c_calls_rejected_total{instance="mine",kind="custom"} 1
`
	assert.Equal(t, want, exposition(t, c))
}

func TestConcurrentEventsAndScrapes(t *testing.T) {
	_, reg := newRegistry(t)
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()
	const publishers, each, instances = 4, 500, 5
	names := []string{"i0", "i1", "i2", "i3", "i4"}
	var wg sync.WaitGroup
	for g := range publishers {
		wg.Go(func() {
			for i := range each {
				reg.Events().Publish(events.CallRejected{Policy: "bulkhead", Instance: names[(g+i)%instances]})
			}
		})
	}
	pr := prometheus.NewPedanticRegistry()
	require.NoError(t, pr.Register(c))
	wg.Go(func() {
		for range 20 {
			_, err := pr.Gather()
			assert.NoError(t, err) // not require: this is not the test's goroutine
		}
	})
	wg.Wait()
	var want strings.Builder
	want.WriteString(`# HELP r4c_calls_rejected_total Calls a policy refused without running them, by policy kind and instance.
# TYPE r4c_calls_rejected_total counter
`)
	for _, n := range names {
		want.WriteString(`r4c_calls_rejected_total{instance="` + n + `",kind="bulkhead"} 400` + "\n")
	}
	assert.Equal(t, want.String(), exposition(t, c))
}

func TestNewCollectorPanicsOnANilRegistry(t *testing.T) {
	assert.PanicsWithValue(t, "r4cprometheus: NewCollector with a nil registry", func() {
		r4cprometheus.NewCollector(nil)
	})
}

// TestDocListsEveryMetric checks the table of doc.go against the families
// gathered when every optional figure is present: names, labels and types.
func TestDocListsEveryMetric(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	for name, alg := range map[string]adaptivelimit.Algorithm{"g": adaptivelimit.Gradient2, "v": adaptivelimit.Vegas} {
		_, err := pipeline.NewBuilder[string](reg, name).AdaptiveLimit(func(c *adaptivelimit.Config) { c.Algorithm = alg }).Build()
		require.NoError(t, err)
	}
	_, err := pipeline.NewBuilder[string](reg, "budget").Retry(func(c *retry.Config) { c.BudgetRatio = 0.5 }).Build()
	require.NoError(t, err)
	br, err := pipeline.NewBuilder[string](reg, "br").
		Breaker(func(c *breaker.Config) { c.MinimumCalls, c.WindowSize = 1, 4 }).Build()
	require.NoError(t, err)
	_, err = br.Execute(ok)
	require.NoError(t, err)
	_, err = pipeline.NewBuilder[string](reg, "shared").RateLimit(func(c *ratelimit.Config) { c.Store = grantingStore{} }).Build()
	require.NoError(t, err)
	c := r4cprometheus.NewCollector(reg)
	defer c.Close()
	p.Run(t)

	pr := prometheus.NewPedanticRegistry()
	require.NoError(t, pr.Register(c))
	mfs, err := pr.Gather()
	require.NoError(t, err)
	var got []string
	for _, mf := range mfs {
		var labels []string
		for _, l := range mf.GetMetric()[0].GetLabel() {
			labels = append(labels, l.GetName())
		}
		got = append(got, mf.GetName()+"{"+strings.Join(labels, ",")+"} "+strings.ToLower(mf.GetType().String()))
	}

	src, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	var doc []string
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "//\tr4c_"); ok {
			fields := strings.Fields("r4c_" + rest)
			// Labels come sorted from the registry.
			name, labels, _ := strings.Cut(strings.TrimSuffix(fields[0], "}"), "{")
			ls := strings.Split(labels, ",")
			slices.Sort(ls)
			doc = append(doc, name+"{"+strings.Join(ls, ",")+"} "+fields[1])
		}
	}
	slices.Sort(got)
	slices.Sort(doc)
	assert.Equal(t, doc, got)
}

type traceKey struct{}

func traceIDs(ctx context.Context) (string, string) {
	v, _ := ctx.Value(traceKey{}).([2]string)
	return v[0], v[1]
}

// A traced call leaves its trace on the call metrics as an exemplar; an
// untraced one counts all the same, without one.
func TestExemplarsCarryTheCallsTrace(t *testing.T) {
	clk, reg := newRegistry(t)
	p := build(t, clk, reg)
	c := r4cprometheus.NewCollector(reg, r4cprometheus.WithExemplars(traceIDs))
	defer c.Close()
	traced := context.WithValue(context.Background(), traceKey{}, [2]string{"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"})
	_, err := p.Search.ExecuteContext(traced, func(context.Context) (string, error) { return "ok", nil })
	require.NoError(t, err)
	_, err = p.Search.Execute(ok)
	require.NoError(t, err)

	pr := prometheus.NewPedanticRegistry()
	require.NoError(t, pr.Register(c))
	mfs, err := pr.Gather()
	require.NoError(t, err)
	var found int
	for _, mf := range mfs {
		switch mf.GetName() {
		case "r4c_pipeline_calls_total":
			m := mf.GetMetric()[0]
			assert.EqualValues(t, 2, m.GetCounter().GetValue())
			ex := m.GetCounter().GetExemplar()
			require.NotNil(t, ex)
			assert.Equal(t, map[string]string{"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00f067aa0ba902b7"}, labelMap(ex.GetLabel()))
			found++
		case "r4c_pipeline_call_duration_seconds":
			h := mf.GetMetric()[0].GetHistogram()
			assert.EqualValues(t, 2, h.GetSampleCount())
			var exemplars int
			for _, b := range h.GetBucket() {
				if ex := b.GetExemplar(); ex != nil {
					exemplars++
					assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", labelMap(ex.GetLabel())["trace_id"])
				}
			}
			assert.Equal(t, 1, exemplars)
			found++
		}
	}
	assert.Equal(t, 2, found)
}

func labelMap(pairs []*dto.LabelPair) map[string]string {
	m := map[string]string{}
	for _, p := range pairs {
		m[p.GetName()] = p.GetValue()
	}
	return m
}

// grantingStore is a rate limiter's store that grants every permit: with
// it the store's figures are present.
type grantingStore struct{}

func (grantingStore) Reserve(context.Context, string, ratelimit.StoreRequest) (ratelimit.Reservation, error) {
	return ratelimit.Reservation{Permits: 1}, nil
}

func (grantingStore) Release(context.Context, string, ratelimit.StoreRequest, int) error { return nil }
