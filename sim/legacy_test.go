package sim

import (
	"math"
	"slices"
	"testing"
	"time"
)

// legacyScenarios are the six scenarios of the synctest-based simulator this
// DES replaced (sim/ before the matrix): C = 40 workers, 100 ms, σ 0.5, a
// client timeout of 1 s, with that simulator's warm-ups.
func legacyScenarios() []*Scenario {
	const s = time.Second
	ph := func(d, skip time.Duration, load float64, workers int, scale float64) Phase {
		return Phase{Duration: d, Skip: skip, Load: load, Capacity: workers, Scale: scale}
	}
	mk := func(name string, phases ...Phase) *Scenario {
		return &Scenario{Family: "legacy", Name: name, Model: FIFO, Base: 100 * time.Millisecond,
			Service: Service{Sigma: 0.5}, Timeout: time.Second, Phases: phases}
	}
	bursty := mk("bursty")
	for range 6 {
		// The old simulator skipped the first 5 s (legacyMeasure does).
		bursty.Phases = append(bursty.Phases, ph(5*s, 0, 4, 40, 1), ph(5*s, 0, 0.25, 40, 1))
	}
	return []*Scenario{
		mk("underload", ph(60*s, 10*s, 0.5, 40, 1)),
		mk("overload2x", ph(90*s, 30*s, 2, 40, 1)),
		mk("overload5x", ph(90*s, 30*s, 5, 40, 1)),
		mk("capdrop", ph(60*s, 30*s, 2, 40, 1), ph(60*s, 20*s, 2, 10, 1), ph(60*s, 20*s, 2, 40, 1)),
		mk("latshift", ph(60*s, 30*s, 2, 40, 1), ph(90*s, 30*s, 2, 40, 2)),
		bursty,
	}
}

// legacyFigures are the old simulator's figures for its two bulkheads
// (Measure and MeasurePhase of sim/ at commit a1c28a9, printed for seeds 1 to
// 3): seed, scenario, limiter, goodput, rejected, timed out, p50, p99,
// admitted calls, and per phase goodput and p99.
type legacyFigure struct {
	seed                        uint64
	scenario, limiter           string
	goodput, rejected, timedOut float64
	p50, p99                    float64
	calls                       int
	phases                      []float64
}

var legacyFigures = []legacyFigure{
	{1, "underload", "bulkhead-40", 1.0147, 0, 0, 0.8845314799999999, 2.78133785, 12146, []float64{1.0147, 2.78133785}},
	{1, "underload", "bulkhead-160", 1.0147, 0, 0, 0.8845314799999999, 2.78133785, 12146, []float64{1.0147, 2.78133785}},
	{1, "overload2x", "bulkhead-40", 0.9779583333333334, 0.5093539014652704, 0, 0.8823436199999999, 2.84349089, 35302, []float64{0.9779583333333334, 2.84349089}},
	{1, "overload2x", "bulkhead-160", 1.0051666666666668, 0.49576722894588326, 0, 3.85145764, 5.834003909999999, 36345, []float64{1.0051666666666668, 5.834003909999999}},
	{1, "overload5x", "bulkhead-40", 0.995875, 0.8003041265968736, 0, 0.8836139099999999, 2.8124398999999998, 35858, []float64{0.995875, 2.8124398999999998}},
	{1, "overload5x", "bulkhead-160", 1.003625, 0.7987417179810673, 4.1514447027565595e-05, 3.87381124, 5.8447574300000005, 36229, []float64{1.003625, 5.8447574300000005}},
	{1, "capdrop", "bulkhead-40", 0.98053125, 0.6418510147706779, 0, 0.96693701, 4.875759929999999, 53033, []float64{0.9759166666666667, 2.86554032, 1.00225, 5.86351708, 0.9785625, 2.85188233}},
	{1, "capdrop", "bulkhead-160", 0.8773125, 0.6076524438965367, 0.18110671476783427, 4.01870556, 10, 57789, []float64{1.0036666666666667, 6.6092083399999995, 0.02075, 10, 0.9966875, 5.83860364}},
	{1, "latshift", "bulkhead-40", 0.9824166666666667, 0.6706935560459205, 8.482123923830527e-05, 0.8850205149999999, 2.8410176399999996, 41398, []float64{0.9759166666666667, 2.86554032, 0.9889166666666667, 2.8193247599999998}},
	{1, "latshift", "bulkhead-160", 0.9735833333333334, 0.6642412223122259, 0.028409799925127908, 3.889030905, 5.636483589999999, 42307, []float64{1.0036666666666667, 6.11705079, 0.9435, 5}},
	{1, "bursty", "bulkhead-40", 1.0123846153846154, 0.6952193084242284, 0, 0.87661024, 2.8205641599999995, 15156, []float64{math.NaN(), math.NaN(), 1.084, 2.46130249, 0.987, 2.7977661999999994, 1.12, 2.51709494, 0.985, 2.81663703, 1.07, 3.2323907299999997, 0.9825, 2.7013850099999996, 1.108, 2.82426538, 1.0055, 2.7683624399999998, 0.99, 2.44305263, 1.013, 2.8917028299999994, 1.058, 3.12853651}},
	{1, "bursty", "bulkhead-160", 1.0709230769230769, 0.6803434671617544, 0, 3.6714030199999996, 5.60802435, 15901, []float64{math.NaN(), math.NaN(), 1.324, 3.4440701, 0.985, 5.72753594, 1.36, 3.59326254, 1.0015, 5.639784829999999, 1.312, 3.28403185, 1.008, 5.8739482899999995, 1.346, 4.23742064, 0.9975, 5.739164209999999, 1.234, 4.063062479999999, 1.0005, 5.75230145, 1.298, 3.46165779}},
	{2, "underload", "bulkhead-40", 1.0032, 0, 0, 0.87437938, 2.83514936, 12057, []float64{1.0032, 2.83514936}},
	{2, "underload", "bulkhead-160", 1.0032, 0, 0, 0.87437938, 2.83514936, 12057, []float64{1.0032, 2.83514936}},
	{2, "overload2x", "bulkhead-40", 0.9737083333333333, 0.514772750866848, 0, 0.88085574, 2.8702810199999997, 35119, []float64{0.9737083333333333, 2.8702810199999997}},
	{2, "overload2x", "bulkhead-160", 0.9985, 0.502460394908955, 0, 3.87087062, 5.88417892, 36121, []float64{0.9985, 5.88417892}},
	{2, "overload5x", "bulkhead-40", 0.9879583333333334, 0.8021082854114329, 0, 0.8846537099999999, 2.8908903, 35560, []float64{0.9879583333333334, 2.8908903}},
	{2, "overload5x", "bulkhead-160", 0.9974166666666666, 0.8002053199569329, 4.177458434288579e-05, 3.8977751599999997, 5.854649429999999, 36132, []float64{0.9974166666666666, 5.854649429999999}},
	{2, "capdrop", "bulkhead-40", 0.97490625, 0.6449704142011834, 0, 0.96505898, 4.98058744, 52821, []float64{0.9730833333333333, 2.8655445, 0.9855, 6.00876117, 0.973625, 2.8540602699999997}},
	{2, "capdrop", "bulkhead-160", 0.8743125, 0.610184342284934, 0.18153953936421754, 4.037297799999999, 10, 57563, []float64{1.0011666666666668, 6.72008825, 0.027, 10, 0.991, 5.88055313}},
	{2, "latshift", "bulkhead-40", 0.98325, 0.66924984935327, 0.00016947716295229217, 0.8771432799999999, 2.86534634, 41310, []float64{0.9730833333333333, 2.8655445, 0.9934166666666666, 2.8619037}},
	{2, "latshift", "bulkhead-160", 0.97325, 0.6633220757017335, 0.027762747138397503, 3.88785663, 5.63096091, 42240, []float64{1.0011666666666668, 6.09589384, 0.9453333333333334, 5}},
	{2, "bursty", "bulkhead-40", 0.9993076923076923, 0.6977584960231381, 0, 0.8800884, 2.8655445, 14987, []float64{math.NaN(), math.NaN(), 1.05, 2.94652727, 0.9875, 2.95024813, 1.094, 2.6385943899999997, 0.96, 2.8879516599999997, 1.056, 2.6792690899999996, 0.9755, 2.9393413099999997, 1.002, 2.7214541199999998, 0.982, 2.88732789, 1.12, 2.8632382099999996, 0.999, 2.8445629799999996, 1.044, 2.7592399}},
	{2, "bursty", "bulkhead-160", 1.0601538461538462, 0.6821076201805332, 0, 3.69062726, 5.70737091, 15807, []float64{math.NaN(), math.NaN(), 1.292, 3.64419182, 0.9815, 5.8099997299999995, 1.332, 3.76097436, 0.982, 5.9237739, 1.298, 3.38656905, 0.9875, 5.84402999, 1.242, 3.2055125499999995, 1.0035, 5.698826179999999, 1.358, 3.30011714, 0.984, 5.86184323, 1.288, 4.45350913}},
	{3, "underload", "bulkhead-40", 1.009, 0, 0, 0.88606264, 2.68620203, 12075, []float64{1.009, 2.68620203}},
	{3, "underload", "bulkhead-160", 1.009, 0, 0, 0.88606264, 2.68620203, 12075, []float64{1.009, 2.68620203}},
	{3, "overload2x", "bulkhead-40", 0.978625, 0.511674810271338, 0, 0.88283524, 2.8062314799999997, 35220, []float64{0.978625, 2.8062314799999997}},
	{3, "overload2x", "bulkhead-160", 0.9984166666666666, 0.501673770662231, 4.17240372178412e-05, 3.87767267, 5.87743639, 36107, []float64{0.9984166666666666, 5.87743639}},
	{3, "overload5x", "bulkhead-40", 0.9929583333333334, 0.8009704683637335, 0, 0.88523561, 2.8327256199999997, 35809, []float64{0.9929583333333334, 2.8327256199999997}},
	{3, "overload5x", "bulkhead-160", 0.9967083333333333, 0.800210463018641, 4.18025248725023e-05, 3.9050017399999994, 5.8470168, 36083, []float64{0.9967083333333333, 5.8470168}},
	{3, "capdrop", "bulkhead-40", 0.9800625, 0.6427635551605884, 0, 0.9698725399999999, 4.876257419999999, 52890, []float64{0.98075, 2.8349939299999996, 0.99525, 5.92913478, 0.97575, 2.81091789}},
	{3, "capdrop", "bulkhead-160", 0.87684375, 0.608971072449898, 0.18038518691180327, 4.02681356, 10, 57589, []float64{0.9975833333333334, 6.61368783, 0.031, 10, 0.99775, 5.871701099999999}},
	{3, "latshift", "bulkhead-40", 0.9861666666666666, 0.6713006041247136, 8.450228156160216e-05, 0.8815630999999999, 2.8324383699999998, 41387, []float64{0.98075, 2.8349939299999996, 0.9915833333333334, 2.832105065}},
	{3, "latshift", "bulkhead-160", 0.97325, 0.6665509339629192, 0.027113702623906704, 3.8956446999999996, 5.68463537, 42145, []float64{0.9975833333333334, 6.21155486, 0.9489166666666666, 5}},
	{3, "bursty", "bulkhead-40", 1.009153846153846, 0.696320014849877, 0, 0.8816898400000001, 2.80037372, 15072, []float64{math.NaN(), math.NaN(), 1.148, 2.9358813299999995, 0.997, 2.5031001899999996, 1.078, 2.95155579, 0.986, 2.8094874199999995, 1.14, 2.6093062199999997, 0.9765, 3.0433229499999994, 1.05, 2.80037372, 0.9855, 2.8067095199999996, 1.02, 2.8450437099999997, 0.989, 2.77006203, 1.066, 3.0505362000000003}},
	{3, "bursty", "bulkhead-160", 1.0736153846153846, 0.6796835119959163, 0, 3.6618711599999996, 5.62626544, 15956, []float64{math.NaN(), math.NaN(), 1.39, 3.6013103, 1.002, 5.60371244, 1.318, 4.13571093, 0.9955, 5.63813034, 1.382, 3.72490698, 1.0135, 5.594136069999999, 1.29, 3.27132232, 0.9975, 5.93835878, 1.26, 3.8660653, 0.983, 5.95401253, 1.308, 3.97673692}},
}

// legacyMeasure computes the old simulator's figures from a trace: goodput
// against min(expected offered rate, capacity) over each phase's steady part,
// and latencies of the calls admitted in it.
func legacyMeasure(tr *Trace, phase int) (goodput, rejected, timedOut, p50, p99 float64) {
	sc := tr.Scenario
	type sp struct {
		from, to time.Duration
		p        Phase
	}
	var spans []sp
	var start time.Duration
	for i, p := range sc.Phases {
		if phase < 0 || phase == i {
			skip := p.Skip
			if sc.Name == "bursty" && i == 0 {
				skip = 5 * time.Second
			}
			spans = append(spans, sp{start + skip, start + p.Duration, p})
		}
		start += p.Duration
	}
	in := func(t time.Duration) bool {
		for _, s := range spans {
			if t >= s.from && t < s.to {
				return true
			}
		}
		return false
	}
	var ideal float64
	for _, s := range spans {
		offered := sc.rate(s.p)
		ideal += math.Min(offered, sc.capacityRate(s.p.Capacity, s.p.Scale)) * (s.to - s.from).Seconds()
	}
	var good, admitted, out float64
	var lats []float64
	for _, c := range tr.Calls {
		if c.OK && in(c.Admitted+c.Latency) {
			good++
		}
		if in(c.Admitted) {
			admitted++
			if !c.OK {
				out++
			}
			lats = append(lats, float64(c.Units))
		}
	}
	slices.Sort(lats)
	var arr, rej float64
	for b, bk := range tr.Buckets {
		if in(time.Duration(b) * SampleEvery) {
			arr += float64(bk.Arrivals)
			rej += float64(bk.Rejected)
		}
	}
	return good / ideal, rej / arr, out / admitted, percentile(lats, 0.5), percentile(lats, 0.99)
}

// TestMatchesLegacySimulator runs the old simulator's scenarios on the DES
// with the same random streams (one PCG per run, a gap then a service draw
// per arrival) and wants its figures for a fixed bulkhead at C and at 4C,
// to float32 precision: the two simulators implement the same model.
func TestMatchesLegacySimulator(t *testing.T) {
	t.Parallel()
	scs := map[string]*Scenario{}
	for _, sc := range legacyScenarios() {
		scs[sc.Name] = sc
	}
	sizes := map[string]float64{"bulkhead-40": 1, "bulkhead-160": 4}
	const tol = 1e-6
	near := func(a, b float64) bool {
		return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) || (math.IsNaN(a) && math.IsNaN(b))
	}
	for _, want := range legacyFigures {
		sc := scs[want.scenario]
		tr, err := Run(t, sc, Bulkhead(want.limiter, sizes[want.limiter]), want.seed)
		if err != nil {
			t.Fatal(err)
		}
		g, r, o, p50, p99 := legacyMeasure(tr, -1)
		if len(tr.Calls) != want.calls || !near(g, want.goodput) || !near(r, want.rejected) ||
			!near(o, want.timedOut) || !near(p50, want.p50) || !near(p99, want.p99) {
			t.Errorf("seed %d %s %s: calls %d goodput %.6f rejected %.6f timed out %.6f p50 %.6f p99 %.6f; "+
				"old simulator: %d %.6f %.6f %.6f %.6f %.6f", want.seed, want.scenario, want.limiter,
				len(tr.Calls), g, r, o, p50, p99, want.calls, want.goodput, want.rejected, want.timedOut, want.p50, want.p99)
		}
		for i := range sc.Phases {
			g, _, _, _, p99 := legacyMeasure(tr, i)
			if !near(g, want.phases[2*i]) || !near(p99, want.phases[2*i+1]) {
				t.Errorf("seed %d %s %s phase %d: goodput %.6f p99 %.6f; old simulator %.6f %.6f",
					want.seed, want.scenario, want.limiter, i, g, p99, want.phases[2*i], want.phases[2*i+1])
			}
		}
	}
}
