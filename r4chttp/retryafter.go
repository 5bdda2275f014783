package r4chttp

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter bounds what a Retry-After header may ask for; longer values
// are cut to it. A day is longer than any caller waits in a retry.
const maxRetryAfter = 24 * time.Hour

// ParseRetryAfter reads a Retry-After header value (RFC 9110, section
// 10.2.3): either a number of seconds ("120") or an HTTP-date ("Wed, 21 Oct
// 2015 07:28:00 GMT", and the two obsolete formats http.ParseTime reads),
// taken relative to now. It returns the wait and true, or 0 and false for a
// value that is neither (empty, negative, a fraction, garbage). A date in
// the past is a wait of 0; a wait longer than a day is cut to a day.
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		for i := 0; i < len(v); i++ {
			if v[i] < '0' || v[i] > '9' {
				return 0, false
			}
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n > uint64(maxRetryAfter/time.Second) {
			if err == nil || err.(*strconv.NumError).Err == strconv.ErrRange {
				return maxRetryAfter, true
			}
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	switch {
	case d <= 0:
		return 0, true
	case d > maxRetryAfter:
		return maxRetryAfter, true
	}
	return d, true
}

// formatRetryAfter returns d as a Retry-After value: whole seconds,
// rounded up, at least 1 for a positive d.
func formatRetryAfter(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	s := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(s, 10)
}
