package main

import (
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs a short load both ways and checks the report's shape.
func TestRun(t *testing.T) {
	var out strings.Builder
	err := run(&out, options{duration: 300 * time.Millisecond, load: 2, workers: 2, service: 5 * time.Millisecond,
		deadline: 200 * time.Millisecond, seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"goodput/s", "\nr4c ", "\nbare "} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	if err := run(&strings.Builder{}, options{}); err == nil {
		t.Fatal("zero options accepted")
	}
}
