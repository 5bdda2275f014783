package sim

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

var flagTrace = flag.String("sim.trace", "", "TestTrace prints one run second by second: family/name#seed (the limiter of -sim.alg and -sim.config)")

// TestTrace prints one run of the limiter of -sim.alg, second by second:
// the capacity, the limit, the calls in flight, busy and queued at the
// dependency, and the calls offered, rejected and answered in time, then
// the run's checks of the bar. It is a tool for reading what a limiter
// did, and is skipped unless -sim.trace names a run:
//
//	go test ./sim -run TestTrace -v -sim.trace='dynamics/step-up#2'
//	go test ./sim -run TestTrace -v -sim.draw=20261203 -sim.trace='holdout/h15-fifo-C=23-730ms-bimodal-0.5x-timeout5x-init=0.05C#1002'
func TestTrace(t *testing.T) {
	if *flagTrace == "" {
		t.Skip("no -sim.trace")
	}
	key, seedText, _ := strings.Cut(*flagTrace, "#")
	seed := uint64(1)
	if seedText != "" {
		n, err := strconv.ParseUint(seedText, 10, 64)
		if err != nil {
			t.Fatalf("-sim.trace %q: seed: %v", *flagTrace, err)
		}
		seed = n
	}
	var sc *Scenario
	if *flagDraw != 0 && strings.HasPrefix(key, "holdout/") {
		for _, h := range HoldoutFrom(*flagDraw, HoldoutShapes) {
			if h.Key() == key {
				sc = h
			}
		}
		if sc == nil {
			t.Fatalf("no scenario %s in the draw %d", key, *flagDraw)
		}
	} else {
		sc = scenario(t, key)
	}
	spec, err := ParseSpec(*flagAlg, *flagConfig)
	if err != nil {
		t.Fatal(err)
	}
	tr := mustRun(t, sc, spec, seed)
	var b strings.Builder
	fmt.Fprintf(&b, "%s seed %d, %s: %s\n", key, seed, spec.Name, sc.Title)
	fmt.Fprintf(&b, "%6s %5s %6s %6s %6s %6s %7s %7s %7s\n", "t", "C", "limit", "inflt", "busy", "queue", "offered", "reject", "good")
	per := int(1e9 / SampleEvery.Nanoseconds())
	for s := 0; s*per < len(tr.Samples); s++ {
		smp := tr.Samples[s*per]
		var off, rej, good int32
		for i := s * per; i < (s+1)*per && i < len(tr.Buckets); i++ {
			off += tr.Buckets[i].Arrivals
			rej += tr.Buckets[i].Rejected
			good += tr.Buckets[i].Good
		}
		fmt.Fprintf(&b, "%6v %5d %6d %6d %6d %6d %7d %7d %7d\n", smp.At, smp.Capacity, smp.Limit, smp.InFlight, smp.Busy, smp.Queued, off, rej, good)
	}
	ref := Measure(mustRun(t, sc, Reference(sc), seed))
	for _, c := range Judge(sc, Measure(tr), ref) {
		mark := "ok "
		if !c.OK {
			mark = "BAD"
		}
		fmt.Fprintf(&b, "%s %s\n", mark, c.Text)
	}
	t.Log("\n" + b.String())
}
