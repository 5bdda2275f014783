package dashboard

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/resilience4cata/r4c"
)

// Data is what /data serves: the samples of the ring turned into one
// series per figure and instance, oldest first, and the current snapshot.
type Data struct {
	// Title is the page's title.
	Title string `json:"title"`
	// Now is the registry clock's time when Data was made.
	Now time.Time `json:"now"`
	// IntervalMS is the sampling interval in milliseconds.
	IntervalMS int64 `json:"interval_ms"`
	// Times are the sample times, in milliseconds since the Unix epoch.
	Times []int64 `json:"times"`
	// AdaptiveLimits, Breakers, RateLimits and Bulkheads are the series of
	// each instance, sorted by id.
	AdaptiveLimits []AdaptiveLimitSeries `json:"adaptive_limits"`
	Breakers       []BreakerSeries       `json:"breakers"`
	RateLimits     []RateLimitSeries     `json:"rate_limits"`
	Bulkheads      []BulkheadSeries      `json:"bulkheads"`
	// Snapshot is the registry's snapshot at the last sample (every kind,
	// timeouts, retries, hedges and fallbacks included).
	Snapshot r4c.Snapshot `json:"snapshot"`
}

// Values is a series of figures, one per sample; NaN stands for a sample
// taken before the instance existed and is written as JSON null.
type Values []float64

// MarshalJSON writes the values as a JSON array, NaN as null.
func (v Values) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(v)*4)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return append(b, ']'), nil
}

// AdaptiveLimitSeries is the history of one adaptive limit.
type AdaptiveLimitSeries struct {
	ID        string `json:"id"`
	Algorithm string `json:"algorithm"`
	MinLimit  int    `json:"min_limit"`
	MaxLimit  int    `json:"max_limit"`
	// Limit and InFlight per sample.
	Limit    Values `json:"limit"`
	InFlight Values `json:"in_flight"`
	// WindowLatencyMS is the last window's average latency, in ms.
	WindowLatencyMS Values `json:"window_latency_ms"`
	// Rejected and Dropped count the rejections and drops since the
	// sample before (0 for the first).
	Rejected Values `json:"rejected"`
	Dropped  Values `json:"dropped"`
}

// BreakerSeries is the history of one circuit breaker.
type BreakerSeries struct {
	ID string `json:"id"`
	// State is the current state; States the state at each sample ("" before
	// the breaker existed).
	State  string   `json:"state"`
	States []string `json:"states"`
	// FailureRatePct is the failure rate in percent (null while too few calls).
	FailureRatePct Values `json:"failure_rate_pct"`
	// Rejected counts the refused calls since the sample before.
	Rejected Values `json:"rejected"`
}

// RateLimitSeries is the history of one rate limiter.
type RateLimitSeries struct {
	ID    string `json:"id"`
	Burst int    `json:"burst"`
	// InUse is the burst's permits taken (Burst - Available).
	InUse    Values `json:"in_use"`
	Rejected Values `json:"rejected"`
}

// BulkheadSeries is the history of one bulkhead.
type BulkheadSeries struct {
	ID       string `json:"id"`
	Max      int    `json:"max"`
	InFlight Values `json:"in_flight"`
	Waiting  Values `json:"waiting"`
	Rejected Values `json:"rejected"`
}

// Data returns the history. It takes a sample first when the last one is
// at least Interval old (or none was taken).
func (d *Dashboard) Data() Data {
	now := d.clock.Nanotime()
	d.mu.Lock()
	if !d.any || now-d.last >= int64(d.interval) {
		f := frame{at: d.clock.Now(), snap: d.reg.Snapshot()}
		d.push(f, now)
	}
	frames := d.frames()
	d.mu.Unlock()
	return build(d.title, d.clock.Now(), d.interval, frames)
}

func build(title string, now time.Time, interval time.Duration, frames []frame) Data {
	out := Data{Title: title, Now: now, IntervalMS: interval.Milliseconds(), Times: make([]int64, len(frames))}
	for i, f := range frames {
		out.Times[i] = f.at.UnixMilli()
	}
	last := frames[len(frames)-1].snap
	out.Snapshot = last
	n := len(frames)
	for _, id := range sortedKeys(last.AdaptiveLimits) {
		cur := last.AdaptiveLimits[id]
		s := AdaptiveLimitSeries{ID: id, Algorithm: cur.Algorithm.String(), MinLimit: cur.MinLimit, MaxLimit: cur.MaxLimit,
			Limit: nan(n), InFlight: nan(n), WindowLatencyMS: nan(n), Rejected: nan(n), Dropped: nan(n)}
		prevRej, prevDrop := math.NaN(), math.NaN()
		for i, f := range frames {
			x, ok := f.snap.AdaptiveLimits[id]
			if !ok {
				continue
			}
			s.Limit[i] = float64(x.Limit)
			s.InFlight[i] = float64(x.InFlight)
			s.WindowLatencyMS[i] = float64(x.WindowLatency) / float64(time.Millisecond)
			s.Rejected[i], prevRej = delta(prevRej, float64(x.Rejections))
			s.Dropped[i], prevDrop = delta(prevDrop, float64(x.Drops))
		}
		out.AdaptiveLimits = append(out.AdaptiveLimits, s)
	}
	for _, id := range sortedKeys(last.Breakers) {
		cur := last.Breakers[id]
		s := BreakerSeries{ID: id, State: cur.State.String(), States: make([]string, n), FailureRatePct: nan(n), Rejected: nan(n)}
		prev := math.NaN()
		for i, f := range frames {
			x, ok := f.snap.Breakers[id]
			if !ok {
				continue
			}
			s.States[i] = x.State.String()
			if x.FailureRate >= 0 {
				s.FailureRatePct[i] = x.FailureRate * 100
			}
			s.Rejected[i], prev = delta(prev, float64(x.NotPermitted))
		}
		out.Breakers = append(out.Breakers, s)
	}
	for _, id := range sortedKeys(last.RateLimits) {
		cur := last.RateLimits[id]
		s := RateLimitSeries{ID: id, Burst: cur.Burst, InUse: nan(n), Rejected: nan(n)}
		prev := math.NaN()
		for i, f := range frames {
			x, ok := f.snap.RateLimits[id]
			if !ok {
				continue
			}
			s.InUse[i] = float64(x.Burst - x.Available)
			s.Rejected[i], prev = delta(prev, float64(x.Rejections))
		}
		out.RateLimits = append(out.RateLimits, s)
	}
	for _, id := range sortedKeys(last.Bulkheads) {
		cur := last.Bulkheads[id]
		s := BulkheadSeries{ID: id, Max: cur.MaxConcurrent, InFlight: nan(n), Waiting: nan(n), Rejected: nan(n)}
		prev := math.NaN()
		for i, f := range frames {
			x, ok := f.snap.Bulkheads[id]
			if !ok {
				continue
			}
			s.InFlight[i] = float64(x.InFlight)
			s.Waiting[i] = float64(x.Waiting)
			s.Rejected[i], prev = delta(prev, float64(x.Rejections))
		}
		out.Bulkheads = append(out.Bulkheads, s)
	}
	return out
}

// delta returns the increase from prev to cur (0 when there is no prev;
// cur itself when the counter went back, as after a reset) and cur.
func delta(prev, cur float64) (float64, float64) {
	switch {
	case math.IsNaN(prev):
		return 0, cur
	case cur < prev:
		return cur, cur
	}
	return cur - prev, cur
}

func nan(n int) Values {
	v := make(Values, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
