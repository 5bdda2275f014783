package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// shape is a one-phase scenario for the model tests.
func shape(model Model, c int, base time.Duration, svc Service, timeoutX, load float64) *Scenario {
	return &Scenario{Family: "test", Name: fmt.Sprintf("%s-C=%d-%v-%v-timeout%gx-%gx", model, c, base, svc, timeoutX, load),
		Model: model, Base: base, Service: svc,
		Timeout: time.Duration(timeoutX * float64(base)),
		Phases:  []Phase{{Duration: 40 * time.Second, Load: load, Capacity: c, Scale: 1}}}
}

func mustRun(t *testing.T, sc *Scenario, spec Spec, seed uint64) *Trace {
	t.Helper()
	tr, err := Run(t, sc, spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestServiceDistributions checks that every service factor has mean 1 and
// that cdf and quantile agree with the draws.
func TestServiceDistributions(t *testing.T) {
	t.Parallel()
	for _, svc := range []Service{{Sigma: 0.25}, {Sigma: 0.5}, {Sigma: 1}, {Sigma: 1.25}, {Bimodal: true}} {
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 400_000
		var sum float64
		var below int
		q99 := svc.quantile(0.99)
		for range n {
			x := svc.draw(rng)
			sum += x
			if x <= q99 {
				below++
			}
		}
		// σ 1.25 has a heavy tail: its sample mean wanders more.
		if mean := sum / n; math.Abs(mean-1) > 0.01 {
			t.Errorf("%v: mean of %d draws %.4f, want 1", svc, n, mean)
		}
		if share := float64(below) / n; math.Abs(share-0.99) > 0.001 {
			t.Errorf("%v: %.4f of draws at most the 0.99 quantile %.3f", svc, share, q99)
		}
		if p := svc.cdf(q99); math.Abs(p-0.99) > 1e-9 {
			t.Errorf("%v: cdf(quantile(0.99)) = %v", svc, p)
		}
	}
}

// erlangB is the blocking probability of c servers without a queue offered
// a Poisson load of a erlangs (any service distribution).
func erlangB(c int, a float64) float64 {
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	return b
}

// TestBulkheadAtCapacity: a limit fixed at C on a FIFO dependency never
// queues, so its admitted p99 is the service time's own p99, and under
// Poisson overload it serves what Erlang's loss formula says: a freed slot
// stays idle until the next arrival, so goodput is load·(1-B(C, load·C)),
// about 1 - 1/(load·C).
func TestBulkheadAtCapacity(t *testing.T) {
	t.Parallel()
	// The squared coefficient of variation of each service factor.
	cv2 := map[Service]float64{{Sigma: 0.25}: math.Expm1(0.25 * 0.25), {Sigma: 0.5}: math.Expm1(0.5 * 0.5),
		{Sigma: 1}: math.Expm1(1), {Bimodal: true}: (0.9+0.1*100)/(1.9*1.9)*math.Exp(BimodalSigma*BimodalSigma) - 1}
	for svc, cv2 := range cv2 {
		for _, c := range []int{4, 40} {
			sc := shape(FIFO, c, 100*time.Millisecond, svc, 20, 3)
			sc.Phases[0].Duration = 300 * time.Second
			tr := mustRun(t, sc, Bulkhead("bulkhead-C", 1), 1)
			f := Measure(tr)
			want := svc.quantile(0.99)
			erlang := 3 * (1 - erlangB(c, 3*float64(c)))
			timedOut := 1 - sc.fit(1)
			// Three standard errors: of the mean service time over the
			// calls served, and of a share.
			n := float64(len(tr.Calls))
			tolGoodput := 0.005 + 3*math.Sqrt(cv2/n)
			tolOut := 3*math.Sqrt(timedOut/n) + 1/n
			// Over 10 s at C=4 a clump of slow calls moves the capacity by
			// a quarter (bimodal: cv² 2.2 over 400 calls); at C=40 by 7%.
			if math.Abs(f.Goodput-erlang) > tolGoodput || math.Abs(f.P99/want-1) > 0.05 ||
				math.Abs(f.TimedOut-timedOut) > tolOut || (c == 40 && f.Worst10s < 0.9) {
				t.Errorf("%v C=%d: goodput %.3f (want %.3f), p99 %.3f (want %.3f ± 5%%), timed out %.4f (want %.4f), worst 10 s %.3f",
					svc, c, f.Goodput, erlang, f.P99, want, f.TimedOut, timedOut, f.Worst10s)
			}
		}
	}
}

// TestProcessorSharing checks the PS model: below the knee a call takes its
// service time (a bulkhead at k behaves like a FIFO one at C); past it, n
// calls share k cores, so a closed loop of n clients completes
// k/(1+α(n-k)) calls per Base, and every call takes n/k times longer
// (without contention).
func TestProcessorSharing(t *testing.T) {
	t.Parallel()
	svc := Service{Sigma: 0.5}
	sc := shape(PS, 8, 10*time.Millisecond, svc, 20, 3)
	f := Measure(mustRun(t, sc, Bulkhead("bulkhead-C", 1), 1))
	erlang := 3 * (1 - erlangB(8, 24))
	if want := svc.quantile(0.99); math.Abs(f.Goodput-erlang) > 0.02 || math.Abs(f.P99/want-1) > 0.05 {
		t.Errorf("bulkhead at k: goodput %.3f, p99 %.3f (want %.3f and %.3f)", f.Goodput, f.P99, erlang, want)
	}
	if f.LimitMean != 1 || f.InBand != 1 || len(f.Settle) != 0 {
		t.Errorf("bulkhead at k: limit/C %.3f, in band %.3f, settle %v; want 1, 1, none", f.LimitMean, f.InBand, f.Settle)
	}
	for _, alpha := range []float64{0, 0.02} {
		const k, n = 8, 24
		cl := shape(PS, k, 10*time.Millisecond, svc, 1000, 0)
		cl.Contention, cl.Clients, cl.Think = alpha, n, time.Millisecond
		tr := mustRun(t, cl, Bulkhead("unlimited", 1000), 1)
		var done int
		var units []float64
		for _, c := range tr.Calls {
			if c.Admitted >= Warmup {
				done++
				units = append(units, float64(c.Units))
			}
		}
		secs := (cl.Duration() - Warmup).Seconds()
		want := k / (1 + alpha*(n-k)) / cl.Base.Seconds()
		if got := float64(done) / secs; math.Abs(got/want-1) > 0.02 {
			t.Errorf("α %v: %d clients on %d cores complete %.1f calls/s, want %.1f", alpha, n, k, got, want)
		}
		var mean float64
		for _, u := range units {
			mean += u / float64(len(units))
		}
		if wantMean := float64(n) / k * (1 + alpha*(n-k)); math.Abs(mean/wantMean-1) > 0.03 {
			t.Errorf("α %v: mean latency %.3f × base, want %.3f", alpha, mean, wantMean)
		}
		for _, s := range tr.Samples {
			if s.At > time.Second && s.Busy != n {
				t.Fatalf("α %v: %d calls running at %v, want the %d clients'", alpha, s.Busy, s.At, n)
			}
		}
	}
}

// TestTimeouts: a call that times out frees its slot at the timeout
// instant; a queued one leaves the FIFO queue, unless the dependency keeps
// working on every call.
func TestTimeouts(t *testing.T) {
	t.Parallel()
	sc := shape(FIFO, 4, 100*time.Millisecond, Service{Sigma: 0.5}, 10, 3)
	keep := *sc
	keep.Abandon = KeepAll
	finish := mustRun(t, sc, Bulkhead("unlimited", 1<<20), 3)
	kept := mustRun(t, &keep, Bulkhead("unlimited", 1<<20), 3)
	for _, tr := range []*Trace{finish, kept} {
		var out int
		for _, c := range tr.Calls {
			if !c.OK {
				out++
				if c.Latency != sc.Timeout {
					t.Fatalf("a timed-out call took %v, want %v", c.Latency, sc.Timeout)
				}
			} else if c.Latency > sc.Timeout {
				t.Fatalf("an answered call took %v, more than the timeout", c.Latency)
			}
		}
		if out == 0 {
			t.Error("no call timed out at 3x overload without a limit")
		}
		for _, s := range tr.Samples {
			if s.Busy > 4 {
				t.Fatalf("%d workers busy of 4 at %v", s.Busy, s.At)
			}
		}
	}
	// With FinishRunning the queue holds at most the calls of one timeout
	// (3x of 40 calls/s for 1 s); with KeepAll it grows without bound.
	last := func(tr *Trace) Sample { return tr.Samples[len(tr.Samples)-1] }
	if q := last(finish).Queued; q > 200 {
		t.Errorf("FinishRunning: %d calls queued at the end, want at most about 120", q)
	}
	if q := last(kept).Queued; q < 2000 {
		t.Errorf("KeepAll: %d calls queued at the end, want the backlog of 40 s at 2x (about 3200)", q)
	}
	if g := Measure(kept).Goodput; g > 0.05 {
		t.Errorf("KeepAll without a limit: goodput %.3f, want a collapse", g)
	}
}

// TestCapacityChanges: the dependency follows a step and a wave of C, and
// the oracle's limit follows it.
func TestCapacityChanges(t *testing.T) {
	t.Parallel()
	sc := shape(FIFO, 40, 100*time.Millisecond, Service{Sigma: 0.5}, 10, 2)
	sc.Phases = []Phase{
		{Duration: 20 * time.Second, Load: 2, Capacity: 40, Scale: 1},
		{Duration: 60 * time.Second, Load: 2, Capacity: 40, Scale: 1, Wave: Wave{Low: 10, Period: 60 * time.Second}},
	}
	tr := mustRun(t, sc, Oracle(), 1)
	for _, s := range tr.Samples {
		want, _ := sc.conditions(s.At)
		if s.Capacity != want || s.Limit != want {
			t.Fatalf("at %v: capacity %d, limit %d, want %d", s.At, s.Capacity, s.Limit, want)
		}
		if s.At > 50*time.Second-SampleEvery && s.At < 50*time.Second+SampleEvery && want != 10 {
			t.Fatalf("the wave is at %d at its middle, want 10", want)
		}
		if s.Busy > s.Capacity+40 {
			t.Fatalf("%d busy with %d workers", s.Busy, s.Capacity)
		}
	}
	if f := Measure(tr); f.LimitMean != 1 || f.Goodput < 0.97 {
		t.Errorf("oracle on a wave: limit/C %.3f, goodput %.3f", f.LimitMean, f.Goodput)
	}
}

// TestClosedLoop: N clients never have more than N calls in flight, and
// keep the dependency busy.
func TestClosedLoop(t *testing.T) {
	t.Parallel()
	sc := shape(FIFO, 40, 100*time.Millisecond, Service{Sigma: 0.5}, 10, 0)
	sc.Clients, sc.Think = 80, 100*time.Millisecond
	tr := mustRun(t, sc, Bulkhead("bulkhead-C", 1), 1)
	for _, s := range tr.Samples {
		if s.InFlight > 40 || s.Busy > 40 {
			t.Fatalf("at %v: %d in flight, %d busy, with a limit of 40", s.At, s.InFlight, s.Busy)
		}
	}
	f := Measure(tr)
	if f.Goodput < 0.97 || f.Rejected == 0 {
		t.Errorf("80 clients on 40 workers: goodput %.3f, rejected %.3f", f.Goodput, f.Rejected)
	}
}

// TestDeterministic runs the same seed twice and wants the same trace, for
// r4c (the virtual clock) and for a peer (time.Now in a bubble); another
// seed gives other calls.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	sc := shape(FIFO, 10, 50*time.Millisecond, Service{Sigma: 1}, 5, 3)
	sc.Phases[0].Duration = 20 * time.Second
	for _, spec := range []Spec{Algorithm(adaptivelimit.Little), Algorithm(adaptivelimit.Gradient2), Failsafe(), GCLGradient2()} {
		a, b := mustRun(t, sc, spec, 7), mustRun(t, sc, spec, 7)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs with seed 7 differ", spec.Name)
		}
		if c := mustRun(t, sc, spec, 8); reflect.DeepEqual(a.Calls, c.Calls) {
			t.Errorf("%s: seeds 7 and 8 gave the same calls", spec.Name)
		}
	}
}

// TestValidate lists scenarios that cannot run.
func TestValidate(t *testing.T) {
	t.Parallel()
	ok := func() *Scenario { return shape(FIFO, 4, 10*time.Millisecond, Service{Sigma: 0.5}, 10, 2) }
	if err := ok().Validate(); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(*Scenario){
		"no phases":              func(s *Scenario) { s.Phases = nil },
		"base":                   func(s *Scenario) { s.Base = 0 },
		"timeout":                func(s *Scenario) { s.Timeout = -1 },
		"σ":                      func(s *Scenario) { s.Service.Sigma = -1 },
		"contention":             func(s *Scenario) { s.Contention = 0.1 },
		"closed loop":            func(s *Scenario) { s.Clients = 3 },
		"abandon":                func(s *Scenario) { s.Abandon = 9 },
		"whole number":           func(s *Scenario) { s.Phases[0].Duration = 1500 * time.Millisecond },
		"within the phase":       func(s *Scenario) { s.Phases[0].Skip = s.Phases[0].Duration },
		"capacity":               func(s *Scenario) { s.Phases[0].Capacity = 0 },
		"scale":                  func(s *Scenario) { s.Phases[0].Scale = 0 },
		"open loop needs a load": func(s *Scenario) { s.Phases[0].Load = 0 },
		"wave low":               func(s *Scenario) { s.Phases[0].Wave = Wave{Low: 9, Period: time.Second} },
	}
	for want, breakIt := range cases {
		sc := ok()
		breakIt(sc)
		err := sc.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Validate() = %v", want, err)
		}
		if _, err := Run(t, sc, Bulkhead("b", 1), 1); err == nil {
			t.Errorf("%s: Run accepted an invalid scenario", want)
		}
	}
	bad := Algorithm(adaptivelimit.Little)
	sc := ok()
	sc.Limits.InitialLimit = 300 // above the default MaxLimit
	if _, err := Run(t, sc, bad, 1); err == nil || !strings.Contains(err.Error(), "initialLimit") {
		t.Errorf("an invalid limiter config: Run returned %v", err)
	}
}
