package config_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/resilience4cata/r4c/internal/config"
)

func TestParseInt(t *testing.T) {
	ok := []struct {
		in   string
		want int
	}{
		{"0", 0}, {"42", 42}, {"-7", -7}, {"+7", 7}, {"007", 7}, {" 12 ", 12}, {"\t-3\n", -3},
		{strconv.Itoa(math.MaxInt), math.MaxInt}, {strconv.Itoa(math.MinInt), math.MinInt},
	}
	for _, tt := range ok {
		if got, err := config.ParseInt(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseInt(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	bad := []struct{ in, reason string }{
		{"", "empty value"},
		{"  ", "empty value"},
		{"1.0", "not an integer"},
		{"1e3", "not an integer"},
		{"0x10", "not a decimal integer"},
		{"1_000", "not a decimal integer"},
		{"1 000", "not a decimal integer"},
		{"ten", "not a decimal integer"},
		{"+", "not a decimal integer"},
		{"9223372036854775808", "out of range"},
		{"-9223372036854775809", "out of range"},
	}
	for _, tt := range bad {
		got, err := config.ParseInt(tt.in)
		checkSyntaxError(t, "ParseInt", tt.in, got, err, config.KindInteger, tt.reason)
	}
}

func TestParseFloat(t *testing.T) {
	ok := []struct {
		in   string
		want float64
	}{
		{"0", 0}, {"0.8", 0.8}, {"-1.5", -1.5}, {"+2", 2}, {".5", 0.5}, {"5.", 5}, {"2e-3", 0.002}, {"1E3", 1000},
		{" 0.25\n", 0.25}, {"1e-400", 0}, {"1.7976931348623157e308", math.MaxFloat64},
	}
	for _, tt := range ok {
		if got, err := config.ParseFloat(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseFloat(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	bad := []struct{ in, reason string }{
		{"", "empty value"},
		{"NaN", "not a finite number"},
		{"nan", "not a finite number"},
		{"Inf", "not a finite number"},
		{"-inf", "not a finite number"},
		{"+Infinity", "not a finite number"},
		{"1e400", "out of range"},
		{"-1e309", "out of range"},
		{"0x1p3", "not a decimal number"},
		{"1_000.5", "not a decimal number"},
		{".", "not a decimal number"},
		{"1e", "not a decimal number"},
		{"e5", "not a decimal number"},
		{"1.2.3", "not a decimal number"},
		{"50%", "not a decimal number"},
		{"1,5", "not a decimal number"},
	}
	for _, tt := range bad {
		got, err := config.ParseFloat(tt.in)
		checkSyntaxError(t, "ParseFloat", tt.in, got, err, config.KindNumber, tt.reason)
	}
}

func TestParseBool(t *testing.T) {
	for _, s := range []string{"true", "TRUE", "True", "yes", "YES", "on", "On", "1", " true "} {
		if got, err := config.ParseBool(s); err != nil || !got {
			t.Errorf("ParseBool(%q) = %v, %v; want true", s, got, err)
		}
	}
	for _, s := range []string{"false", "FALSE", "no", "No", "off", "OFF", "0", "\tfalse\n"} {
		if got, err := config.ParseBool(s); err != nil || got {
			t.Errorf("ParseBool(%q) = %v, %v; want false", s, got, err)
		}
	}
	bad := []struct{ in, reason string }{
		{"", "empty value"},
		{" ", "empty value"},
		{"t", "expected true or false"},
		{"f", "expected true or false"},
		{"y", "expected true or false"},
		{"n", "expected true or false"},
		{"enabled", "expected true or false"},
		{"2", "expected true or false"},
		{"truee", "expected true or false"},
	}
	for _, tt := range bad {
		got, err := config.ParseBool(tt.in)
		checkSyntaxError(t, "ParseBool", tt.in, got, err, config.KindBoolean, tt.reason)
	}
}

func checkSyntaxError[V comparable](t *testing.T, fn, in string, got V, err error, kind, reason string) {
	t.Helper()
	var zero V
	var se *config.SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("%s(%q) = %v, %v; want a *SyntaxError", fn, in, got, err)
		return
	}
	if got != zero || se.Value != in || se.Kind != kind || !strings.Contains(se.Reason, reason) {
		t.Errorf("%s(%q) = %v, %+v; want kind %s, reason containing %q", fn, in, got, *se, kind, reason)
	}
}
