package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// Family is a named group of scenarios that vary one thing.
type Family struct {
	Name, Title string
	Scenarios   []*Scenario
}

// HoldoutShapes is how many random shapes the holdout family draws.
const HoldoutShapes = 24

// HoldoutSeedBase offsets the seeds of the holdout family's runs, so that
// they are never the seeds of the other families (1, 2, 3, ...).
const HoldoutSeedBase = 1000

// holdoutDraw is the seed the holdout shapes are drawn from.
const holdoutDraw = 0x401d0a7

// Seeds returns the seeds of n runs of a scenario of family.
func Seeds(family string, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i + 1)
		if family == "holdout" {
			out[i] += HoldoutSeedBase
		}
	}
	return out
}

const (
	msec = time.Millisecond
	sec  = time.Second
)

// limitsFor returns the Limits of a scenario whose largest capacity is c
// and whose initial limit is initial (0: the default): MaxLimit is raised
// to 2c where that passes the default, and to the initial limit.
func limitsFor(c, initial int) Limits {
	l := Limits{InitialLimit: initial}
	if m := max(2*c, initial); m > adaptivelimit.DefaultMaxLimit {
		l.MaxLimit = m
	}
	return l
}

// steady is a one-phase overload scenario whose limit must settle from
// the start.
func steady(family, name string, model Model, c int, base time.Duration, svc Service, timeoutX, load float64, d time.Duration) *Scenario {
	return &Scenario{
		Family: family, Name: name, Model: model, Base: base, Service: svc,
		Timeout: time.Duration(timeoutX * float64(base)),
		Limits:  limitsFor(c, 0),
		Phases:  []Phase{{Duration: d, Load: load, Capacity: c, Scale: 1, Settle: load > 1}},
		Title: fmt.Sprintf("%s C=%d, %s, %v, timeout %gx, %gx load, %s",
			model, c, fmtDuration(base), svc, timeoutX, load, fmtDuration(d)),
	}
}

// Families returns the scenario matrix, family by family.
func Families() []Family {
	sigma := Service{Sigma: 0.5}
	const base = 100 * msec

	capacity := Family{Name: "capacity", Title: "capacity C from 2 to 1000, 3x overload, limit starting at 20"}
	for _, c := range []struct {
		c    int
		base time.Duration
	}{{2, 10 * msec}, {4, 20 * msec}, {10, 50 * msec}, {40, 100 * msec}, {200, 250 * msec}, {500, 500 * msec}, {1000, sec}} {
		capacity.Scenarios = append(capacity.Scenarios,
			steady("capacity", fmt.Sprintf("C=%d", c.c), FIFO, c.c, c.base, sigma, 10, 3, 60*sec))
	}

	latency := Family{Name: "latency", Title: "base latency from 0.5 ms to 2 s at C=10 (a 1 s window holds 20,000 down to 5 calls)"}
	for _, l := range []struct {
		base, d time.Duration
	}{{msec / 2, 30 * sec}, {msec, 30 * sec}, {10 * msec, 30 * sec}, {100 * msec, 60 * sec}, {500 * msec, 90 * sec}, {2 * sec, 90 * sec}} {
		latency.Scenarios = append(latency.Scenarios,
			steady("latency", "base="+fmtDuration(l.base), FIFO, 10, l.base, sigma, 10, 3, l.d))
	}

	noise := Family{Name: "noise", Title: "service-time noise at C=40, 100 ms, 3x"}
	for _, sg := range []float64{0.25, 0.5, 1, 1.25} {
		noise.Scenarios = append(noise.Scenarios,
			steady("noise", "sigma="+strconv.FormatFloat(sg, 'g', -1, 64), FIFO, 40, base, Service{Sigma: sg}, 10, 3, 60*sec))
	}
	noise.Scenarios = append(noise.Scenarios, steady("noise", "bimodal", FIFO, 40, base, Service{Bimodal: true}, 10, 3, 60*sec))

	timeouts := Family{Name: "timeouts", Title: "client timeout from 2x to 20x base at C=40, 100 ms, 3x"}
	for _, sg := range []float64{0.5, 1.25} {
		for _, x := range []float64{2, 3, 5, 10, 20} {
			timeouts.Scenarios = append(timeouts.Scenarios, steady("timeouts",
				fmt.Sprintf("%gx-sigma=%g", x, sg), FIFO, 40, base, Service{Sigma: sg}, x, 3, 60*sec))
		}
	}

	overload := Family{Name: "overload", Title: "offered load at C=40, 100 ms: open loop 1.2x to 10x, closed loop, underload (also under a 2x timeout)"}
	for _, x := range []float64{1.2, 2, 5, 10} {
		overload.Scenarios = append(overload.Scenarios,
			steady("overload", strconv.FormatFloat(x, 'g', -1, 64)+"x", FIFO, 40, base, sigma, 10, x, 60*sec))
	}
	for _, n := range []int{2, 10} {
		sc := steady("overload", fmt.Sprintf("closed-%dC", n), FIFO, 40, base, sigma, 10, 0, 60*sec)
		sc.Clients, sc.Think = n*40, base
		sc.Phases[0].Settle = true
		sc.Title = fmt.Sprintf("fifo C=40, %v, %v, timeout 10x, closed loop: %d clients, think %v after a rejection, 60s",
			base, sigma, n*40, base)
		overload.Scenarios = append(overload.Scenarios, sc)
	}
	under := steady("overload", "underload-0.5x", FIFO, 40, base, sigma, 10, 0.5, 60*sec)
	under.Underload = true
	// Underload under a 2x timeout (σ 1), where the tail's timeouts are
	// a tenth of the calls at no load: those drops are the dependency's
	// own, and a limit brought down for them sheds. (Not at a small C: at
	// half of C=4 a bulkhead at C turns away 7% of random arrivals, and
	// the bar asks no more than knowing C gives.)
	tight := steady("overload", "underload-0.5x-timeout2x", FIFO, 40, base, Service{Sigma: 1}, 2, 0.5, 60*sec)
	tight.Underload = true
	low := steady("overload", "low-traffic", FIFO, 40, base, sigma, 10, 0, 90*sec)
	low.Phases[0].Rate, low.Underload = 2, true
	low.Title = "fifo C=40, 100ms, σ 0.5, timeout 10x, 2 calls/s, 90s"
	overload.Scenarios = append(overload.Scenarios, under, tight, low)

	ps := Family{Name: "ps", Title: "processor sharing (a CPU-bound database): k cores, 10 ms, with and without contention α=0.02; PostgreSQL's case"}
	for _, k := range []int{2, 8, 32} {
		for _, alpha := range []float64{0, 0.02} {
			name := fmt.Sprintf("k=%d", k)
			if alpha > 0 {
				name += "-contention"
			}
			sc := steady("ps", name, PS, k, 10*msec, sigma, 10, 3, 40*sec)
			sc.Contention = alpha
			sc.Title = fmt.Sprintf("ps k=%d, α %g, 10ms, σ 0.5, timeout 10x, 3x load, 40s", k, alpha)
			ps.Scenarios = append(ps.Scenarios, sc)
		}
	}
	for _, x := range []float64{2, 4} {
		sc := steady("ps", fmt.Sprintf("postgres-%gx", x), PS, 8, 7600*time.Microsecond, Service{Sigma: 0.25}, 10, x, 40*sec)
		sc.Contention = 0.02
		sc.Title = fmt.Sprintf("PostgreSQL's case: ps k=8, α 0.02, 7.6ms, σ 0.25, timeout 76ms, %gx load, limit starting at 20 (above the knee), 40s", x)
		ps.Scenarios = append(ps.Scenarios, sc)
	}

	start := Family{Name: "start", Title: "the limit starting far above and far below C, 3x"}
	for _, st := range []struct {
		name    string
		c       int
		base    time.Duration
		initial int
	}{
		{"C=40-initial=10C", 40, base, 400},
		{"C=40-initial=0.05C", 40, base, 2},
		{"C=40-initial=1", 40, base, 1},
		{"C=4-initial=10C", 4, 20 * msec, 40},
		{"C=200-initial=0.05C", 200, 250 * msec, 10},
	} {
		sc := steady("start", st.name, FIFO, st.c, st.base, sigma, 10, 3, 60*sec)
		sc.Limits = limitsFor(st.c, st.initial)
		sc.Title += fmt.Sprintf(", initial limit %d", st.initial)
		start.Scenarios = append(start.Scenarios, sc)
	}

	dynamics := Family{Name: "dynamics", Title: "changes at C=40, 100 ms: capacity steps, a sinusoid, latency step and drift, bursts, wasted work"}
	dyn := func(name, title string, phases ...Phase) *Scenario {
		top := 0
		for _, p := range phases {
			top = max(top, p.Capacity)
		}
		return &Scenario{Family: "dynamics", Name: name, Title: title, Model: FIFO, Base: base, Service: sigma,
			Timeout: 10 * base, Limits: limitsFor(top, 0), Phases: phases}
	}
	dynamics.Scenarios = append(dynamics.Scenarios,
		dyn("step-down", "C 40 → 10 at 30 s, load 2x of 40 (8x of 10)",
			Phase{Duration: 30 * sec, Load: 2, Capacity: 40, Scale: 1, Settle: true},
			Phase{Duration: 40 * sec, Skip: 10 * sec, Load: 2, Capacity: 10, Scale: 1, Settle: true}),
		dyn("step-up", "C 10 → 40 at 30 s, load 8x of 10 (2x of 40)",
			Phase{Duration: 30 * sec, Load: 8, Capacity: 10, Scale: 1, Settle: true},
			Phase{Duration: 40 * sec, Skip: 10 * sec, Load: 8, Capacity: 40, Scale: 1, Settle: true}),
		dyn("sinusoid", "C = 40 ↔ 10 in a sinusoid of period 60 s, load 2x of 40",
			Phase{Duration: 90 * sec, Load: 2, Capacity: 40, Scale: 1, Wave: Wave{Low: 10, Period: 60 * sec}}),
		dyn("latency-step", "service time x2 at 30 s, same 40 workers, load 2x",
			Phase{Duration: 30 * sec, Load: 2, Capacity: 40, Scale: 1, Settle: true},
			Phase{Duration: 40 * sec, Skip: 10 * sec, Load: 2, Capacity: 40, Scale: 2, Settle: true}),
		dyn("latency-drift", "service time drifting x1 → x2 from 20 s to 80 s, same 40 workers, load 2x",
			Phase{Duration: 20 * sec, Load: 2, Capacity: 40, Scale: 1, Settle: true},
			Phase{Duration: 60 * sec, Load: 2, Capacity: 40, Scale: 1, ScaleTo: 2},
			Phase{Duration: 10 * sec, Load: 2, Capacity: 40, Scale: 2}),
	)
	bursts := dyn("bursts", "on/off bursts: 5 s at 4x, 5 s at 0.25x, six times")
	for range 6 {
		bursts.Phases = append(bursts.Phases,
			Phase{Duration: 5 * sec, Load: 4, Capacity: 40, Scale: 1},
			Phase{Duration: 5 * sec, Load: 0.25, Capacity: 40, Scale: 1})
	}
	wasted := dyn("wasted-work", "the dependency serves every call, even those whose client gave up; timeout 5x, 3x load",
		Phase{Duration: 60 * sec, Load: 3, Capacity: 40, Scale: 1, Settle: true})
	wasted.Abandon, wasted.Timeout = KeepAll, 5*base
	wastedStep := dyn("wasted-work-step-down", "wasted work (as above) and C 40 → 10 at 30 s, timeout 5x, load 2x of 40",
		Phase{Duration: 30 * sec, Load: 2, Capacity: 40, Scale: 1, Settle: true},
		Phase{Duration: 40 * sec, Skip: 10 * sec, Load: 2, Capacity: 10, Scale: 1, Settle: true})
	wastedStep.Abandon, wastedStep.Timeout = KeepAll, 5*base
	dynamics.Scenarios = append(dynamics.Scenarios, bursts, wasted, wastedStep)

	return []Family{capacity, latency, noise, timeouts, overload, ps, start, dynamics,
		{Name: "holdout", Title: fmt.Sprintf("%d shapes drawn at random from the ranges above, run on seeds from %d: not for tuning",
			HoldoutShapes, HoldoutSeedBase+1), Scenarios: Holdout(HoldoutShapes)}}
}

// Matrix returns every scenario of Families, in order.
func Matrix() []*Scenario {
	var out []*Scenario
	for _, f := range Families() {
		out = append(out, f.Scenarios...)
	}
	return out
}

// Holdout draws n shapes from the ranges of the other families, from a
// fixed seed: the model (PS a quarter of the time, with contention half of
// those), C log-uniform in [2, 1000], the base log-uniform in [0.5 ms, 2 s]
// with C/base between 5 and 20,000 calls per second, the noise, the
// timeout, the load (underload one time in eight), the start of the limit
// (the default, 10C or C/20, named 0.05C), and wasted work one time in eight.
func Holdout(n int) []*Scenario { return HoldoutFrom(holdoutDraw, n) }

// HoldoutFrom draws n shapes as Holdout does, from the seed draw instead of
// the fixed one: a fresh draw is a set of shapes nobody has looked at, to
// check an algorithm on after tuning it on the matrix (TestMatrix's
// -sim.draw flag). Holdout is HoldoutFrom of a fixed draw.
func HoldoutFrom(draw uint64, n int) []*Scenario {
	rng := rand.New(rand.NewPCG(draw, 0x401d))
	pick := func(xs []float64) float64 { return xs[rng.IntN(len(xs))] }
	logUniform := func(lo, hi float64) float64 {
		return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
	}
	out := make([]*Scenario, n)
	for i := range out {
		model, alpha := FIFO, 0.0
		if rng.Float64() < 0.25 {
			model = PS
			if rng.Float64() < 0.5 {
				alpha = 0.02
			}
		}
		var c int
		var base time.Duration
		for {
			c = int(math.Round(logUniform(2, 1000)))
			base = roundSignificant(time.Duration(logUniform(float64(msec/2), float64(2*sec))), 2)
			if r := float64(c) / base.Seconds(); r >= 5 && r <= 20000 {
				break
			}
		}
		svc := Service{Sigma: pick([]float64{0.25, 0.5, 1, 1.25})}
		if rng.IntN(5) == 0 {
			svc = Service{Bimodal: true}
		}
		timeoutX := pick([]float64{2, 3, 5, 10, 20})
		load := pick([]float64{1.2, 2, 3, 5, 10})
		if rng.IntN(8) == 0 {
			load = 0.5
		}
		initial, start := 0, "default"
		switch rng.IntN(3) {
		case 1:
			initial, start = 10*c, "10C"
		case 2:
			initial, start = max(1, c/20), "0.05C"
		}
		abandon := FinishRunning
		if rng.IntN(8) == 0 {
			abandon = KeepAll
		}
		d := 60 * sec
		if base >= 500*msec {
			d = 90 * sec
		}
		var name strings.Builder
		fmt.Fprintf(&name, "h%02d-%s-C=%d-%s-%s-%gx-timeout%gx-init=%s", i+1, model, c, fmtDuration(base),
			strings.ReplaceAll(svc.String(), "σ ", "sigma"), load, timeoutX, start)
		if alpha > 0 {
			name.WriteString("-contention")
		}
		if abandon == KeepAll {
			name.WriteString("-keepall")
		}
		sc := steady("holdout", name.String(), model, c, base, svc, timeoutX, load, d)
		sc.Contention, sc.Abandon, sc.Limits = alpha, abandon, limitsFor(c, initial)
		sc.Underload = load < 1
		sc.Title += ", initial limit " + start
		out[i] = sc
	}
	return out
}

// fmtDuration formats d in ms below a second ("0.5ms", "7.6ms", "250ms"),
// else in s ("1.7s").
func fmtDuration(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'g', -1, 64) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'g', -1, 64) + "s"
}

// roundSignificant rounds d to n significant digits.
func roundSignificant(d time.Duration, n int) time.Duration {
	unit := time.Duration(math.Pow(10, math.Floor(math.Log10(float64(d)))-float64(n-1)))
	return d.Round(max(1, unit))
}
