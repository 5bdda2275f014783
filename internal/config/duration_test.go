package config_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/resilience4cata/r4c/internal/config"
)

func TestParseDurationAccepts(t *testing.T) {
	const maxD, minD = time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
	tests := []struct {
		in   string
		want time.Duration
	}{
		// Go syntax, as time.ParseDuration reads it.
		{"500ms", 500 * time.Millisecond},
		{"2s", 2 * time.Second},
		{"1h30m", 90 * time.Minute},
		{"1.5s", 1500 * time.Millisecond},
		{".5s", 500 * time.Millisecond},
		{"1.s", time.Second},
		{"0", 0},
		{"-0", 0},
		{"+0", 0},
		{"-1.5s", -1500 * time.Millisecond},
		{"+2s", 2 * time.Second},
		{"1s1s", 2 * time.Second},
		{"3us", 3 * time.Microsecond},
		{"3µs", 3 * time.Microsecond},
		{"3μs", 3 * time.Microsecond},
		{"7ns", 7},
		{"2562047h47m16.854775807s", maxD},
		{"-2562047h47m16.854775808s", minD},
		{"9223372036854775807ns", maxD},
		// Surrounding white space is trimmed.
		{"  2s\t", 2 * time.Second},
		{"\n PT2S \r\n", 2 * time.Second},
		// ISO-8601, the subset Java's Duration.parse reads.
		{"PT0.5S", 500 * time.Millisecond},
		{"PT2S", 2 * time.Second},
		{"PT1M30S", 90 * time.Second},
		{"P1DT2H", 26 * time.Hour},
		{"P1D", 24 * time.Hour},
		{"P0D", 0},
		{"PT0S", 0},
		{"PT1H2M3.456S", time.Hour + 2*time.Minute + 3456*time.Millisecond},
		{"PT0.123456789S", 123456789},
		{"PT1,5S", 1500 * time.Millisecond},
		{"PT1.S", time.Second},
		{"PT00000000000000000000001S", time.Second},
		// Case-insensitive.
		{"pt2s", 2 * time.Second},
		{"Pt1m", time.Minute},
		{"p1dT1h1M1s", 24*time.Hour + time.Hour + time.Minute + time.Second},
		// Signs, as Java combines them.
		{"-PT1S", -time.Second},
		{"+PT1S", time.Second},
		{"PT-1S", -time.Second},
		{"-PT-1S", time.Second},
		{"PT+1S", time.Second},
		{"PT-0.5S", -500 * time.Millisecond},
		{"PT+0.5S", 500 * time.Millisecond},
		{"-PT-0.5S", 500 * time.Millisecond},
		{"PT1M-30S", 30 * time.Second},
		{"P1DT-24H", 0},
		{"-P1DT1H", -25 * time.Hour},
		{"-P0D", 0},
		// The edges of time.Duration.
		{"PT9223372036.854775807S", maxD},
		{"-PT9223372036.854775808S", minD},
		{"PT-9223372036.854775808S", minD},
		{"P106751DT23H47M16.854775807S", maxD},
		{"-P106751DT23H47M16.854775808S", minD},
		{"PT2562047H47M16.854775807S", maxD},
		{"P106752DT-24H", 106751 * 24 * time.Hour},
	}
	for _, tt := range tests {
		got, err := config.ParseDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseDurationRejects(t *testing.T) {
	tests := []struct {
		in     string
		reason string // a substring of SyntaxError.Reason
	}{
		{"", "empty value"},
		{"   ", "empty value"},
		// Go syntax.
		{"500", "missing unit"},
		{"-7", "missing unit"},
		{"2x", `unknown unit "x"`},
		{"2sec", `unknown unit "sec"`},
		{"2S", "units are lowercase"},
		{"500MS", "units are lowercase"},
		{"2 s", "white space"},
		{"1h 30m", "white space"},
		{"abc", "expected a number"},
		{"-", "a sign with no number"},
		{".s", `lone "."`},
		{"1s2", `missing unit after "2"`},
		{"1.5.5s", "missing unit"},
		{"1e3s", `unknown unit "e"`},
		{"9223372036854775808ns", "out of range"},
		{"2562048h", "out of range"},
		{"-2562047h47m16.854775809s", "out of range"},
		// ISO-8601: shape.
		{"P", "no component after P"},
		{"-P", "no component after P"},
		{"PT", "T must be followed"},
		{"P1DT", "T must be followed"},
		{"P1Dt", "T must be followed"}, // Java accepts this one by a slip
		{"PT1", "missing designator"},
		{"P1", "missing designator"},
		{"PTS", "missing number before"},
		{"PT-S", "missing number before"},
		{"PT.5S", "needs digits before it"},
		{"PT1.5M", "only seconds may have a fraction"},
		{"PT1.5H", "only seconds may have a fraction"},
		{"PT1.5", "only seconds may have a fraction"},
		{"P1.5D", "only seconds may have a fraction"},
		{"PT0.1234567890S", "more than nine digits"},
		{"PT1S1M", "out of order"},
		{"PT1H1H", "out of order"},
		{"PT1D", "days go before T"},
		{"P1H", "go after T"},
		{"P1S", "go after T"},
		{"P1DT1HT1S", "T given twice"},
		{"P1D1D", "days given twice"},
		{"PT1X", `unexpected 'X'`},
		{"P1X", `unexpected 'X'`},
		{"PT--1S", `unexpected '-'`},
		{"--PT1S", "expected a number"}, // not ISO: Go syntax, and not that either
		{"P 1D", `unexpected ' '`},
		{"PT1S ", ""}, // trimmed: accepted, checked below
		{"PT٣S", `unexpected '٣'`},
		// ISO-8601: no fixed length.
		{"P1Y", "no fixed length"},
		{"P1W", "no fixed length"},
		{"P1M", "months have no fixed length"},
		{"p2m", "months have no fixed length"},
		{"P1Y2M3DT4H", "no fixed length"},
		{"PT1Y", "no fixed length"},
		// ISO-8601: range.
		{"PT9223372036.854775808S", "out of range"},
		{"-PT9223372036.854775809S", "out of range"},
		{"-PT-9223372036.854775808S", "out of range"},
		{"P106752D", "out of range"},
		{"PT9223372036854775807S", "out of range"},
		{"PT9223372036854775808S", "out of range"},
		{"P99999999999999999999D", "out of range"},
	}
	for _, tt := range tests {
		got, err := config.ParseDuration(tt.in)
		if tt.reason == "" {
			if err != nil {
				t.Errorf("ParseDuration(%q): %v", tt.in, err)
			}
			continue
		}
		var se *config.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseDuration(%q) = %v, %v; want a *SyntaxError", tt.in, got, err)
			continue
		}
		if got != 0 || se.Value != tt.in || se.Kind != config.KindDuration || !strings.Contains(se.Reason, tt.reason) {
			t.Errorf("ParseDuration(%q) = %v, %+v; want reason containing %q", tt.in, got, *se, tt.reason)
		}
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	_, err := config.ParseDuration(" 2x ")
	want := `config: invalid duration " 2x ": unknown unit "x" (use ns, us, ms, s, m or h, or ISO-8601 such as PT2S)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

// TestParseDurationGoSyntaxIsTimeParseDuration checks that Go syntax means
// exactly what time.ParseDuration reads.
func TestParseDurationGoSyntaxIsTimeParseDuration(t *testing.T) {
	for _, s := range []string{"1h2m3s4ms5us6ns", "0.000000001s", "0.0000000001s", "1.9999999999ns", "15m", "-.5h", "100000h", "2562047.7h"} {
		want, werr := time.ParseDuration(s)
		got, err := config.ParseDuration(s)
		if got != want || (err == nil) != (werr == nil) {
			t.Errorf("ParseDuration(%q) = %v, %v; time.ParseDuration: %v, %v", s, got, err, want, werr)
		}
	}
}
