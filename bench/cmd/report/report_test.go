package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseName(t *testing.T) {
	for _, c := range []struct {
		in   string
		want key
	}{
		{"Floor", key{"Floor", "", 1}},
		{"Floor-2", key{"Floor", "", 2}},
		{"AdaptiveLimitAdmitted/lib=r4c-core", key{"AdaptiveLimitAdmitted", "r4c-core", 1}},
		{"AdaptiveLimitAdmitted/lib=gcl-gradient2-2", key{"AdaptiveLimitAdmitted", "gcl-gradient2", 2}},
	} {
		got, err := parseName(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseName(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	if _, err := parseName("X/size=4"); err == nil {
		t.Error("parseName accepted a part other than lib=")
	}
}

func TestKeptReading(t *testing.T) {
	doc := "# x\n" + beginReading + "\nmine\n\nstill mine\n" + endReading + "\nrest"
	if got := keptReading([]byte(doc)); got != "mine\n\nstill mine" {
		t.Errorf("keptReading = %q", got)
	}
	if got := keptReading([]byte("no markers")); got != "" {
		t.Errorf("keptReading without markers = %q", got)
	}
}

func TestTrimBenchstat(t *testing.T) {
	in := "goos: linux\ncpu: Some CPU\n      │ f │\nFloor   1.0n ± 2%\n"
	if got := trimBenchstat(in); got != "      │ f │\nFloor   1.0n ± 2%" {
		t.Errorf("trimBenchstat = %q", got)
	}
}

const sample = `cpu: Test CPU
BenchmarkFloor 	1000	80 ns/op	80 cpu-ns/op	0 B/op	0 allocs/op
BenchmarkFloor 	1000	82 ns/op	82 cpu-ns/op	0 B/op	0 allocs/op
BenchmarkFloor 	1000	78 ns/op	78 cpu-ns/op	0 B/op	0 allocs/op
BenchmarkAdaptiveLimitAdmitted/lib=r4c-core 	1000	90 ns/op	90 cpu-ns/op	0 B/op	0 allocs/op
BenchmarkAdaptiveLimitAdmitted/lib=r4c-pipeline 	1000	100 ns/op	100 cpu-ns/op	0 B/op	0 allocs/op
BenchmarkAdaptiveLimitAdmitted/lib=failsafe-direct 	1000	360 ns/op	350 cpu-ns/op	96 B/op	1 allocs/op
BenchmarkAdaptiveLimitRejected/lib=r4c-pipeline 	1000	20 ns/op	20 cpu-ns/op	0 B/op	1 allocs/op
`

func TestRender(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.txt")
	if err := os.WriteFile(path, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := load(path)
	if err != nil {
		t.Fatal(err)
	}
	if st := d.get("Floor", "", 1); !st.ok || st.t != 80 || st.n != 3 {
		t.Fatalf("Floor = %+v, want the median 80 of 3", st)
	}
	doc := render(d, meta{}, map[string]string{"AdaptiveLimitAdmitted": "TABLE"}, "r.txt", "kept")
	for _, want := range []string{
		"| Admitted call, one-policy adaptive-limit pipeline (AdaptiveLimitAdmitted/r4c-pipeline): at most 1.3× floor | 1.25× (100 / 80.0 ns; wall 1.25×): met |",
		"| Rejection through the pipeline (AdaptiveLimitRejected/r4c-pipeline): at most 0.1× floor | 0.25× (20.0 / 80.0 ns; wall 0.25×): **missed by 150 %** |",
		"| Rejection through the pipeline: 0 allocs/op | **missed: 1 allocs/op** |",
		"| AdaptiveLimitAdmitted: failsafe-direct ÷ r4c-pipeline: r4c at least 3× faster | 3.5× (350 / 100 ns; wall 3.60×): met |",
		"| failsafe-direct | 1 | 350 | 360 | 96 | 1 | 4.38 | 3.89 | 3.50 |",
		"TABLE",
		beginReading + "\nkept\n" + endReading,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(doc)
	}
}
