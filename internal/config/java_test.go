package config_test

import (
	"bufio"
	"encoding/hex"
	"errors"
	"math/big"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/resilience4cata/r4c/internal/config"
)

// The golden files in testdata/java hold inputs and the results of Java 17's
// Duration.parse and Properties.load on them, made by testdata/java/Diff.java
// from the inputs testdata/java/gen.py writes:
//
//	python3 gen.py && javac Diff.java
//	java Diff dur dur.in durations.golden && java Diff prop prop.in properties.golden
//
// Each line is the hex of the UTF-8 input, a tab, and Java's result.

func readGolden(t *testing.T, name string) [][2]string {
	t.Helper()
	f, err := os.Open("testdata/java/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		in, res, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("bad golden line %q", sc.Text())
		}
		b, err := hex.DecodeString(in)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, [2]string{string(b), res})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("empty golden file")
	}
	return out
}

func TestParseDurationAgreesWithJava(t *testing.T) {
	var compared, rangeErrs int
	for _, g := range readGolden(t, "durations.golden") {
		in, want := g[0], g[1]
		if in != strings.TrimSpace(in) {
			continue // Java does not trim; ParseDuration does
		}
		got, err := config.ParseDuration(in)
		compared++
		if javaBareLowercaseT(in) {
			// Java accepts "P1Dt" but not "P1DT": its check for a T with
			// no time after it is case-sensitive. We reject both.
			if err == nil {
				t.Errorf("ParseDuration(%q) = %v, want an error for a bare T", in, got)
			}
			continue
		}
		if want == "ERR" {
			if err == nil {
				t.Errorf("ParseDuration(%q) = %v, Java rejects it", in, got)
			}
			continue
		}
		n, ok := new(big.Int).SetString(want, 10)
		if !ok {
			t.Fatalf("bad golden value %q", want)
		}
		if !n.IsInt64() {
			rangeErrs++
			var se *config.SyntaxError
			if !errors.As(err, &se) || !strings.HasPrefix(se.Reason, "out of range") {
				t.Errorf("ParseDuration(%q) = %v, %v; want an out-of-range error (Java: %s ns)", in, got, err, want)
			}
			continue
		}
		if err != nil || int64(got) != n.Int64() {
			t.Errorf("ParseDuration(%q) = %d, %v; Java: %s", in, int64(got), err, want)
		}
	}
	if compared < 1000 || rangeErrs == 0 {
		t.Fatalf("compared %d values, %d out of range: golden file too small", compared, rangeErrs)
	}
}

// javaBareLowercaseT reports whether s ends in a lowercase "t" right after
// its days.
func javaBareLowercaseT(s string) bool {
	return len(s) >= 2 && s[len(s)-1] == 't' && (s[len(s)-2] == 'D' || s[len(s)-2] == 'd')
}

func TestParsePropertiesAgreesWithJava(t *testing.T) {
	for _, g := range readGolden(t, "properties.golden") {
		in, want := g[0], g[1]
		got, err := config.ParseProperties(strings.NewReader(in))
		switch want {
		case "ERR", "SURR":
			// ERR: Java rejects a malformed \uXXXX escape. SURR: Java put an
			// unpaired surrogate in a key or value; UTF-8 cannot hold one,
			// so we reject the file.
			var pe *config.PropertiesError
			if !errors.As(err, &pe) {
				t.Errorf("ParseProperties(%q) = %q, %v; want a *PropertiesError (Java: %s)", in, got, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseProperties(%q): %v; Java: %s", in, err, want)
			continue
		}
		keys := make([]string, 0, len(got))
		for k := range got {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("OK")
		for _, k := range keys {
			b.WriteString(" " + hex.EncodeToString([]byte(k)) + "=" + hex.EncodeToString([]byte(got[k])))
		}
		if b.String() != want {
			t.Errorf("ParseProperties(%q) = %q\n got  %s\n java %s", in, got, b.String(), want)
		}
	}
}
