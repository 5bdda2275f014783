package sim

import "time"

// Phase is a stretch of a scenario with constant conditions.
type Phase struct {
	// Duration is how long the phase lasts.
	Duration time.Duration
	// Load is the offered load as a multiple of the initial capacity:
	// Poisson arrivals at Load × Capacity / BaseService calls per second.
	Load float64
	// Workers is the dependency's concurrency during the phase.
	Workers int
	// Scale multiplies the base service time during the phase (1: base).
	Scale float64
	// Skip is the start of the phase left out of the steady-state figures
	// (the time a limiter is given to adapt).
	Skip time.Duration
	// Settle reports how long the limit takes to come within 25% of
	// Workers after the phase starts.
	Settle bool
}

// Scenario is a named sequence of phases.
type Scenario struct {
	Name  string // short key, used in test names and file names
	Title string // one line for the report
	// Phases run back to back from t = 0.
	Phases []Phase
	// Underload marks scenarios where a good limiter sheds nothing.
	Underload bool
}

// Duration is the total length of s.
func (s Scenario) Duration() time.Duration {
	var d time.Duration
	for _, p := range s.Phases {
		d += p.Duration
	}
	return d
}

// phaseAt returns the index of the phase at offset t and its start.
func (s Scenario) phaseAt(t time.Duration) (int, time.Duration) {
	var start time.Duration
	for i, p := range s.Phases {
		if t < start+p.Duration {
			return i, start
		}
		start += p.Duration
	}
	return len(s.Phases) - 1, start - s.Phases[len(s.Phases)-1].Duration
}

func steady(d, skip time.Duration, load float64, workers int, scale float64, settle bool) Phase {
	return Phase{Duration: d, Load: load, Workers: workers, Scale: scale, Skip: skip, Settle: settle}
}

// Scenarios returns the scenarios of the report, in order.
func Scenarios() []Scenario {
	const s = time.Second
	bursty := Scenario{
		Name:  "bursty",
		Title: "bursty on/off: 5 s at 4x, 5 s at 0.25x, six times",
	}
	for i := 0; i < 6; i++ {
		skip := time.Duration(0)
		if i == 0 {
			skip = 5 * s
		}
		bursty.Phases = append(bursty.Phases,
			steady(5*s, skip, 4, Capacity, 1, false),
			steady(5*s, 0, 0.25, Capacity, 1, false))
	}
	return []Scenario{
		{Name: "underload", Title: "underload: 0.5x capacity for 60 s", Underload: true,
			Phases: []Phase{steady(60*s, 10*s, 0.5, Capacity, 1, false)}},
		{Name: "overload2x", Title: "overload 2x for 90 s",
			Phases: []Phase{steady(90*s, 30*s, 2, Capacity, 1, true)}},
		{Name: "overload5x", Title: "overload 5x for 90 s",
			Phases: []Phase{steady(90*s, 30*s, 5, Capacity, 1, true)}},
		{Name: "capdrop", Title: "capacity 40 -> 10 at 60 s -> 40 at 120 s, load 2x of 40",
			Phases: []Phase{
				steady(60*s, 30*s, 2, Capacity, 1, true),
				steady(60*s, 20*s, 2, Capacity/4, 1, true),
				steady(60*s, 20*s, 2, Capacity, 1, true),
			}},
		{Name: "latshift", Title: "service time x2 at 60 s, same 40 workers, load 2x",
			Phases: []Phase{
				steady(60*s, 30*s, 2, Capacity, 1, true),
				steady(90*s, 30*s, 2, Capacity, 2, true),
			}},
		bursty,
	}
}
