package config_test

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/resilience4cata/r4c/internal/config"
)

// fuzzSyntaxError fails t unless err is a *SyntaxError of kind for s with
// a reason.
func fuzzSyntaxError(t *testing.T, err error, s, kind string) {
	t.Helper()
	var se *config.SyntaxError
	if !errors.As(err, &se) || se.Value != s || se.Kind != kind || se.Reason == "" {
		t.Fatalf("%q: %#v is not a %s *SyntaxError", s, err, kind)
	}
}

// FuzzParseInt checks ParseInt against an independent reading with
// math/big: an optional sign and ASCII digits, trimmed, within int. The
// seeds (here and in testdata/fuzz/FuzzParseInt) run in every go test.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "42", "-7", "+007", " 12 ", "\t-3\n", "", " ", "1.0", "1e3", "0x10", "1_000",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"++1", "-", "+", "١٢", "1 2", "\u00a01", "99999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := config.ParseInt(s)
		want, ok := referenceInt(s)
		if err != nil {
			fuzzSyntaxError(t, err, s, config.KindInteger)
			if n != 0 || ok {
				t.Fatalf("ParseInt(%q) = %d, %v; reference %d, %v", s, n, err, want, ok)
			}
			return
		}
		if !ok || n != want {
			t.Fatalf("ParseInt(%q) = %d; reference %d, %v", s, n, want, ok)
		}
		if back, err := config.ParseInt(strconv.Itoa(n)); err != nil || back != n {
			t.Fatalf("ParseInt(Itoa(%d)) = %d, %v", n, back, err)
		}
	})
}

func referenceInt(s string) (int, bool) {
	t := strings.TrimSpace(s)
	digits := strings.TrimLeft(t, "+-")
	if len(t)-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	b, ok := new(big.Int).SetString(t, 10)
	if !ok || !b.IsInt64() || b.Int64() < math.MinInt || b.Int64() > math.MaxInt {
		return 0, false
	}
	return int(b.Int64()), true
}

// FuzzParseFloat checks that ParseFloat accepts exactly the finite decimal
// numbers, reads them as strconv does, and that what it returns formats
// and reads back to itself.
func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"0.8", "-1.5", ".5", "5.", "2e-3", "1E+3", "", " ", "NaN", "inf", "-Infinity", "0x1p3",
		"1_0", "1e", "e3", ".", "-.e1", "1e400", "1e-400", "+0", "-0", " 3.25 ", "1.7976931348623157e308", "1.8e308"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := config.ParseFloat(s)
		if err != nil {
			fuzzSyntaxError(t, err, s, config.KindNumber)
			if v != 0 {
				t.Fatalf("ParseFloat(%q) = %v with an error", s, v)
			}
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("ParseFloat(%q) = %v", s, v)
		}
		trimmed := strings.TrimSpace(s)
		for _, c := range trimmed {
			if !strings.ContainsRune("0123456789+-.eE", c) {
				t.Fatalf("ParseFloat(%q) = %v: accepted a %q", s, v, c)
			}
		}
		want, werr := strconv.ParseFloat(trimmed, 64)
		if werr != nil || want != v {
			t.Fatalf("ParseFloat(%q) = %v; strconv: %v, %v", s, v, want, werr)
		}
		text := strconv.FormatFloat(v, 'g', -1, 64)
		if back, err := config.ParseFloat(text); err != nil || back != v {
			t.Fatalf("ParseFloat(%q) = %v, %v; want %v", text, back, err, v)
		}
	})
}

// FuzzParseBool checks that ParseBool accepts exactly its eight words, in
// any case and with surrounding white space, and nothing else.
func FuzzParseBool(f *testing.F) {
	for _, s := range []string{"true", "FALSE", " Yes ", "no", "On", "off", "1", "0", "", "t", "y", "2", "truee", "tru\u0065", "\u0130", "ſ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := config.ParseBool(s)
		word := strings.ToLower(strings.TrimSpace(s))
		want, known := map[string]bool{"true": true, "yes": true, "on": true, "1": true,
			"false": false, "no": false, "off": false, "0": false}[word]
		if err != nil {
			fuzzSyntaxError(t, err, s, config.KindBoolean)
			if known || v {
				t.Fatalf("ParseBool(%q) = %v, %v", s, v, err)
			}
			return
		}
		if !known || v != want {
			t.Fatalf("ParseBool(%q) = %v; want %v (known %v)", s, v, want, known)
		}
	})
}

// FuzzSplitEnv checks SplitEnv on an environment of up to three entries:
// every entry it returns comes from one "NAME=value" whose name starts
// with the prefix, names are sorted and distinct, and the first value of a
// name wins.
func FuzzSplitEnv(f *testing.F) {
	for _, s := range [][4]string{
		{"R4C_", "R4C_A=1", "R4C_B=2", "PATH=/bin"},
		{"R4C_", "R4C_A=1", "R4C_A=2", "R4C_=x"},
		{"R4C_", "=C:=C:\\dir", "R4C", "R4C_X"},
		{"", "a=b", "=", "==="},
		{"R4C_", "R4C_K=v=w", "r4c_k=lower", "R4C_K\u00e9=\xff"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, prefix, a, b, c string) {
		environ := []string{a, b, c}
		got := config.SplitEnv(environ, prefix)
		first := map[string]string{}
		for _, kv := range environ {
			if kv == "" {
				continue
			}
			eq := strings.IndexByte(kv[1:], '=')
			if eq < 0 {
				continue
			}
			name, value := kv[:eq+1], kv[eq+2:]
			if len(name) <= len(prefix) || !strings.HasPrefix(name, prefix) {
				continue
			}
			if _, ok := first[name[len(prefix):]]; !ok {
				first[name[len(prefix):]] = value
			}
		}
		if len(got) != len(first) {
			t.Fatalf("SplitEnv(%q, %q) = %q; want %q", environ, prefix, got, first)
		}
		for i, e := range got {
			if i > 0 && got[i-1].Name >= e.Name {
				t.Fatalf("SplitEnv(%q, %q) = %q: not sorted and distinct", environ, prefix, got)
			}
			if v, ok := first[e.Name]; !ok || v != e.Value || e.Name == "" {
				t.Fatalf("SplitEnv(%q, %q) = %q; want %q", environ, prefix, got, first)
			}
		}
	})
}
