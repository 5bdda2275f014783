package main

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// key names one measured variant: a benchmark (group) name, the library
// (the value of its lib= part, "" for the single benchmarks) and GOMAXPROCS.
type key struct {
	bench string
	lib   string
	procs int
}

// samples holds one variant's measurements, one per round: wall-clock
// time, CPU time (the bench module's cpu-ns/op metric) in nanoseconds per
// call, bytes and allocations per call.
type samples struct {
	ns, cpu, bytes, allocs []float64
}

// data is a results file, parsed.
type data struct {
	m     map[key]*samples
	libs  map[string][]string // libraries of each benchmark, in order of appearance
	procs []int               // the GOMAXPROCS values seen, ascending
	cpu   string              // the "cpu:" configuration line
	// byCPU is set when every variant has CPU times: ratios then use
	// them (see stat.t).
	byCPU bool
}

func load(path string) (*data, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := &data{m: map[key]*samples{}, libs: map[string][]string{}}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			k, err := parseName(string(rec.Name))
			if err != nil {
				return nil, err
			}
			if d.cpu == "" {
				d.cpu = rec.GetConfig("cpu")
			}
			s := d.m[k]
			if s == nil {
				s = &samples{}
				d.m[k] = s
				if !slices.Contains(d.libs[k.bench], k.lib) {
					d.libs[k.bench] = append(d.libs[k.bench], k.lib)
				}
				if !slices.Contains(d.procs, k.procs) {
					d.procs = append(d.procs, k.procs)
				}
			}
			if v, ok := rec.Value("sec/op"); ok {
				s.ns = append(s.ns, v*1e9)
			}
			if v, ok := rec.Value("cpu-sec/op"); ok {
				s.cpu = append(s.cpu, v*1e9)
			}
			if v, ok := rec.Value("B/op"); ok {
				s.bytes = append(s.bytes, v)
			}
			if v, ok := rec.Value("allocs/op"); ok {
				s.allocs = append(s.allocs, v)
			}
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if len(d.m) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results", path)
	}
	sort.Ints(d.procs)
	d.byCPU = true
	for _, s := range d.m {
		if len(s.cpu) == 0 {
			d.byCPU = false
		}
	}
	return d, nil
}

// parseName splits "AdaptiveLimitAdmitted/lib=r4c-core-2" into its parts.
func parseName(full string) (key, error) {
	base, parts := benchfmt.Name(full).Parts()
	k := key{bench: string(base), procs: 1}
	for _, p := range parts {
		s := string(p)
		switch {
		case strings.HasPrefix(s, "/lib="):
			k.lib = strings.TrimPrefix(s, "/lib=")
		case strings.HasPrefix(s, "-"):
			n, err := strconv.Atoi(s[1:])
			if err != nil {
				return k, fmt.Errorf("benchmark %q: bad GOMAXPROCS suffix", full)
			}
			k.procs = n
		default:
			return k, fmt.Errorf("benchmark %q: unexpected name part %q", full, s)
		}
	}
	return k, nil
}

// stat is a variant's medians.
type stat struct {
	ns, cpu, bytes, allocs float64
	// t is the time the ratios use: cpu when the data has CPU times,
	// else ns.
	t  float64
	n  int
	ok bool
}

func (d *data) get(bench, lib string, procs int) stat {
	s := d.m[key{bench, lib, procs}]
	if s == nil || len(s.ns) == 0 {
		return stat{}
	}
	st := stat{ns: median(s.ns), cpu: median(s.cpu), bytes: median(s.bytes), allocs: median(s.allocs), n: len(s.ns), ok: true}
	st.t = st.ns
	if d.byCPU {
		st.t = st.cpu
	}
	return st
}

// maxAllocs is the most allocations any round of a variant measured.
func (d *data) maxAllocs(bench, lib string, procs int) float64 {
	s := d.m[key{bench, lib, procs}]
	if s == nil {
		return 0
	}
	return slices.Max(append([]float64{0}, s.allocs...))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
