package config_test

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/resilience4cata/r4c/internal/config"
)

// durationSeeds are the seed corpus of FuzzParseDuration; they run in every
// go test.
var durationSeeds = []string{
	"500ms", "2s", "1h30m", "0", "-0", "+5s", ".5s", "1.s", "3µs", "2562047h47m16.854775807s",
	"-2562047h47m16.854775808s", "9223372036854775808ns", "500", "2x", "2 s", "1e3s", "",
	"PT0.5S", "PT2S", "PT1M30S", "P1DT2H", "PT-1S", "-PT1S", "-PT-0.5S", "pt2s", "P1Dt", "P1DT",
	"PT1,5S", "PT1.S", "PT0.1234567890S", "P1Y", "P1M", "P1W", "PT1S1M", "P106751DT23H47M16.854775807S",
	"-PT9223372036.854775808S", "PT9223372036.854775808S", "P99999999999999999999D", "  PT2S\n",
}

// FuzzParseDuration checks that ParseDuration never panics, reports every
// failure as a *SyntaxError, reads Go syntax as time.ParseDuration does and
// ISO-8601 as a transcription of Java's Duration.parse does, and that a
// parsed duration formatted in either syntax parses back to itself.
func FuzzParseDuration(f *testing.F) {
	for _, s := range durationSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := config.ParseDuration(s)
		trimmed := strings.TrimSpace(s)
		iso := isISO(trimmed)
		if err != nil {
			var se *config.SyntaxError
			if !errors.As(err, &se) || se.Value != s || se.Kind != config.KindDuration || se.Reason == "" || d != 0 {
				t.Fatalf("ParseDuration(%q) = %v, %#v", s, d, err)
			}
		}
		if iso {
			want, ok := javaDuration(trimmed)
			if ok != (err == nil) || ok && want != d {
				t.Fatalf("ParseDuration(%q) = %v, %v; reference: %v, %v", s, d, err, want, ok)
			}
		} else if trimmed != "" {
			want, werr := time.ParseDuration(trimmed)
			if (werr == nil) != (err == nil) || want != d {
				t.Fatalf("ParseDuration(%q) = %v, %v; time.ParseDuration: %v, %v", s, d, err, want, werr)
			}
		}
		if err == nil {
			checkDurationRoundTrip(t, d)
		}
	})
}

// FuzzDurationRoundTrip checks that every duration, formatted in Go syntax
// or in ISO-8601, parses back to itself.
func FuzzDurationRoundTrip(f *testing.F) {
	for _, n := range []int64{0, 1, -1, 999999999, 1e9, -1e9, 90 * 6e10, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, n int64) {
		checkDurationRoundTrip(t, time.Duration(n))
	})
}

func checkDurationRoundTrip(t *testing.T, d time.Duration) {
	t.Helper()
	for _, s := range []string{d.String(), formatISO(d), strings.ToLower(formatISO(d)), formatISODays(d)} {
		got, err := config.ParseDuration(s)
		if err != nil || got != d {
			t.Fatalf("ParseDuration(%q) = %v, %v; want %v (%d ns)", s, got, err, d, int64(d))
		}
	}
}

// formatISO formats d as [-]PT<seconds>.<nanoseconds>S.
func formatISO(d time.Duration) string {
	sign, mag := "", uint64(d)
	if d < 0 {
		sign, mag = "-", uint64(-d) // -MinInt64 wraps to 1<<63, its magnitude
	}
	return sign + "PT" + strconv.FormatUint(mag/1e9, 10) + "." + leftPad(mag%1e9) + "S"
}

// formatISODays formats d as PnDTnHnMn.nS with every component negative when
// d is, as Java's Duration.toString does.
func formatISODays(d time.Duration) string {
	sign, mag := "", uint64(d)
	if d < 0 {
		sign, mag = "-", uint64(-d)
	}
	ns := mag % 1e9
	secs := mag / 1e9
	return "P" + sign + strconv.FormatUint(secs/86400, 10) + "DT" +
		sign + strconv.FormatUint(secs/3600%24, 10) + "H" +
		sign + strconv.FormatUint(secs/60%60, 10) + "M" +
		sign + strconv.FormatUint(secs%60, 10) + "," + leftPad(ns) + "S"
}

func leftPad(ns uint64) string {
	s := strconv.FormatUint(ns, 10)
	return strings.Repeat("0", 9-len(s)) + s
}

// isISO reports whether ParseDuration should read s, a trimmed value, as
// ISO-8601: P or p after an optional sign.
func isISO(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s != "" && (s[0] == 'P' || s[0] == 'p')
}

// javaPattern is Java's Duration.parse pattern.
var javaPattern = regexp.MustCompile(`^(?i)([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$`)

// javaDuration is an independent transcription of Java's Duration.parse,
// with arbitrary-precision arithmetic; it reports false where Java throws
// or the result does not fit a time.Duration. Unlike Java it rejects a T
// followed by nothing in either case (Java checks only for an uppercase T).
func javaDuration(s string) (time.Duration, bool) {
	m := javaPattern.FindStringSubmatch(s)
	if m == nil || strings.EqualFold(m[3], "T") || m[2] == "" && m[4] == "" && m[5] == "" && m[6] == "" {
		return 0, false
	}
	total := new(big.Int)
	add := func(num string, unit int64) {
		if num == "" {
			return
		}
		n, _ := new(big.Int).SetString(strings.TrimPrefix(num, "+"), 10)
		total.Add(total, n.Mul(n, big.NewInt(unit)))
	}
	add(m[2], 86400e9)
	add(m[4], 3600e9)
	add(m[5], 60e9)
	add(m[6], 1e9)
	if m[7] != "" {
		frac := m[7] + strings.Repeat("0", 9-len(m[7]))
		if strings.HasPrefix(m[6], "-") {
			frac = "-" + frac
		}
		add(frac, 1)
	}
	if m[1] == "-" {
		total.Neg(total)
	}
	if !total.IsInt64() {
		return 0, false
	}
	return time.Duration(total.Int64()), true
}

// propertiesSeeds are the seed corpus of FuzzParseProperties.
var propertiesSeeds = []string{
	"", "a=b", "a:b", "a b", " a = b ", "# c\n! d\na=b", "a=b\\\n  c", "a=b\\\r\n\tc", "a=b\\\\\nc=d",
	"a=b\\", "\\", "\\\n#x\nk=v", `a\=b\:c\ d=\t\n\r\f\\\x`, `a=\u0041\uD83D\uDE00`, `a=\u004`,
	`a=\uD83D`, `a=\uDE00x`, "a=\\u00\\\n  41", "\ufeffk=v", "k=1\rk=2\r\nk=3\n", "clé=välue 😀",
	"a=\xff", "a==b", "=b", ":", "a \t: b", "key\\\n  =v", "a=b\\\n\nc=d",
	"\ufeff\ufeff", "\ufeff\ufeff=\ufeff", "k=\ufeff", "\\uFEFFk=v",
}

// FuzzParseProperties checks that ParseProperties never panics, reports
// every failure as a *PropertiesError on an existing line, returns entries
// on increasing lines that ParseProperties applies last-wins, and that
// entries written back in properties syntax read back the same.
func FuzzParseProperties(f *testing.F) {
	for _, s := range propertiesSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := config.ParsePropertiesEntries(bytes.NewReader(data))
		m, merr := config.ParseProperties(bytes.NewReader(data))
		if (err == nil) != (merr == nil) {
			t.Fatalf("ParsePropertiesEntries: %v; ParseProperties: %v", err, merr)
		}
		if err != nil {
			var pe *config.PropertiesError
			if !errors.As(err, &pe) || entries != nil || m != nil || pe.Reason == "" || pe.Line < 1 || pe.Line > physicalLines(data) {
				t.Fatalf("ParsePropertiesEntries(%q) = %v, %#v (%d lines)", data, entries, err, physicalLines(data))
			}
			return
		}
		want := make(map[string]string)
		last := 0
		for _, e := range entries {
			if e.Line <= last || e.Line > physicalLines(data) {
				t.Fatalf("ParsePropertiesEntries(%q): entry %+v after line %d (%d lines)", data, e, last, physicalLines(data))
			}
			if !utf8.ValidString(e.Key) || !utf8.ValidString(e.Value) {
				t.Fatalf("ParsePropertiesEntries(%q): invalid UTF-8 in %+v", data, e)
			}
			last = e.Line
			want[e.Key] = e.Value
		}
		if len(m) != len(want) {
			t.Fatalf("ParseProperties(%q) = %q; want %q", data, m, want)
		}
		for k, v := range want {
			if got, ok := m[k]; !ok || got != v {
				t.Fatalf("ParseProperties(%q) = %q; want %q", data, m, want)
			}
		}
		// Write the entries back, one per line, and read them again.
		var out strings.Builder
		for _, e := range entries {
			out.WriteString(escapeProperty(e.Key, true) + "=" + escapeProperty(e.Value, false) + "\n")
		}
		again, err := config.ParsePropertiesEntries(strings.NewReader(out.String()))
		if err != nil || len(again) != len(entries) {
			t.Fatalf("reading back %q: %v, %d entries; want %d", out.String(), err, len(again), len(entries))
		}
		for i := range again {
			if again[i].Key != entries[i].Key || again[i].Value != entries[i].Value || again[i].Line != i+1 {
				t.Fatalf("reading back %q: entry %d = %+v; want %+v on line %d", out.String(), i, again[i], entries[i], i+1)
			}
		}
	})
}

// escapeProperty escapes s as Java's Properties.store does, writing
// characters above U+FFFF as surrogate-pair escapes, U+FEFF as \uFEFF (raw
// at the start of the file it would read back as a byte order mark, which
// the parser skips) and others as UTF-8.
func escapeProperty(s string, key bool) string {
	var b strings.Builder
	for i, r := range s {
		switch r {
		case ' ':
			if key || i == 0 {
				b.WriteString(`\ `)
			} else {
				b.WriteByte(' ')
			}
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		case '\\', '=', ':', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\uFEFF':
			b.WriteString(`\uFEFF`)
		default:
			if r > 0xFFFF {
				hi, lo := utf16.EncodeRune(r)
				b.WriteString(`\u` + strings.ToUpper(strconv.FormatInt(int64(hi), 16)))
				b.WriteString(`\u` + strings.ToUpper(strconv.FormatInt(int64(lo), 16)))
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// physicalLines counts lines ending at "\n", "\r" or "\r\n", plus one for
// the text after the last line end.
func physicalLines(data []byte) int {
	n := 1
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			n++
		case '\n':
			n++
		}
	}
	return n
}
