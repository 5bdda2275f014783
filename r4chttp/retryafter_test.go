package r4chttp_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/r4chttp"
)

var now = time.Date(2026, 12, 3, 10, 0, 0, 250_000_000, time.UTC)

func TestParseRetryAfter(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"3", 3 * time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"86400", 24 * time.Hour, true},
		{"86401", 24 * time.Hour, true},
		{"99999999999999999999999", 24 * time.Hour, true},
		{"Thu, 03 Dec 2026 10:00:05 GMT", 4750 * time.Millisecond, true},
		{"Thursday, 03-Dec-26 10:00:05 GMT", 4750 * time.Millisecond, true},
		{"Thu Dec  3 10:00:05 2026", 4750 * time.Millisecond, true},
		{"Thu, 03 Dec 2026 09:00:00 GMT", 0, true},
		{"Fri, 03 Dec 2027 10:00:00 GMT", 24 * time.Hour, true},
		{"", 0, false},
		{"   ", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1.5", 0, false},
		{"1e3", 0, false},
		{"3s", 0, false},
		{"soon", 0, false},
		{"Thu, 03 Dec 2026 10:00:05", 0, false},
	} {
		d, ok := r4chttp.ParseRetryAfter(c.in, now)
		assert.Equal(t, c.ok, ok, "%q", c.in)
		assert.Equal(t, c.want, d, "%q", c.in)
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "1", "120", "86401", "18446744073709551616", "-5", "1.5", "",
		"Thu, 03 Dec 2026 10:00:05 GMT", "Thursday, 03-Dec-26 10:00:05 GMT", "Thu Dec  3 10:00:05 2026",
		"Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "\x00", "٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := r4chttp.ParseRetryAfter(s, now)
		if !ok {
			if d != 0 {
				t.Fatalf("%q: not ok but %v", s, d)
			}
			return
		}
		if d < 0 || d > 24*time.Hour {
			t.Fatalf("%q: %v out of [0, 24h]", s, d)
		}
		v := strings.TrimSpace(s)
		if n, err := strconv.ParseUint(v, 10, 64); err == nil {
			want := time.Duration(min(n, 86400)) * time.Second
			if d != want {
				t.Fatalf("%q: %v, want %v", s, d, want)
			}
			return
		}
		at, err := http.ParseTime(v)
		if err != nil {
			if strings.Trim(v, "0123456789") != "" {
				t.Fatalf("%q: accepted, yet neither seconds nor an HTTP-date", s)
			}
			return // digits too many for a uint64: cut to a day
		}
		want := min(max(at.Sub(now), 0), 24*time.Hour)
		if d != want {
			t.Fatalf("%q: %v, want %v", s, d, want)
		}
	})
}
