package config

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a duration in Go syntax ("500ms", "1h30m") or in
// ISO-8601 ("PT0.5S", "P1DT2H"), after trimming surrounding white space.
// A value whose first letter after an optional sign is P or p is ISO-8601;
// anything else is Go syntax.
//
// Go syntax is exactly what [time.ParseDuration] accepts. ISO-8601 is
// exactly the days-to-seconds subset that Java's Duration.parse accepts:
//
//	[+-]P[[+-]nD][T[[+-]nH][[+-]nM][[+-]n[.f]S]]
//
// with letters in either case, at least one component, a T only when a
// time component follows it, "," allowed for "." and at most nine digits
// of fraction. Signs combine: "-PT-1S" is one second. Years (Y), months (M
// before T) and weeks (W) are rejected because they have no fixed length.
//
// Negative durations are accepted in both syntaxes; whether a negative
// value is allowed is for the caller to decide. A value outside the range
// of time.Duration (about ±292 years) is an error, never a wrap-around.
// Every error is a *SyntaxError with Kind KindDuration.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, &SyntaxError{Value: s, Kind: KindDuration, Reason: "empty value"}
	}
	body := t
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	if body != "" && (body[0] == 'P' || body[0] == 'p') {
		d, reason := parseISODuration(t)
		if reason != "" {
			return 0, &SyntaxError{Value: s, Kind: KindDuration, Reason: reason}
		}
		return d, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		reason := diagnoseGoDuration(t)
		if reason == "" {
			reason = reasonDurationRange
		}
		return 0, &SyntaxError{Value: s, Kind: KindDuration, Reason: reason}
	}
	return d, nil
}

const (
	reasonDurationRange = "out of range (a duration must lie within about ±292 years, ±2562047h)"
	hintUnits           = "use ns, us, ms, s, m or h, or ISO-8601 such as PT2S"
)

// diagnoseGoDuration explains why time.ParseDuration rejected s. It follows
// the grammar time.ParseDuration reads and returns "" when s follows it, in
// which case the value can only have been out of range.
func diagnoseGoDuration(s string) string {
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return "a sign with no number"
	}
	first := true
	for s != "" {
		// A number: digits, optionally "." and digits, at least one digit.
		i := 0
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		pre := i > 0
		post := false
		if i < len(s) && s[i] == '.' {
			i++
			j := i
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			post = i > j
		}
		if !pre && !post {
			if i > 0 {
				return "a lone \".\" is not a number"
			}
			if first {
				return "not a duration: expected a number such as 500ms, 2s or PT0.5S"
			}
			return "expected a number at " + strconv.Quote(s)
		}
		num := s[:i]
		s = s[i:]
		// A unit: everything up to the next "." or digit.
		i = 0
		for i < len(s) && s[i] != '.' && !isDigit(s[i]) {
			i++
		}
		unit := s[:i]
		s = s[i:]
		switch unit {
		case "ns", "us", "µs", "μs", "ms", "s", "m", "h":
		case "":
			if first && s == "" {
				return "missing unit (write 500ms, 2s or PT0.5S; only 0 may go without a unit)"
			}
			return "missing unit after " + strconv.Quote(num)
		default:
			if strings.ContainsAny(unit, " \t\n\r\f\v") {
				return "white space inside a duration"
			}
			switch strings.ToLower(unit) {
			case "ns", "us", "µs", "μs", "ms", "s", "m", "h":
				return "unknown unit " + strconv.Quote(unit) + " (units are lowercase: " + hintUnits + ")"
			}
			return "unknown unit " + strconv.Quote(unit) + " (" + hintUnits + ")"
		}
		first = false
	}
	return ""
}

// parseISODuration reads the ISO-8601 subset described on ParseDuration.
// s is trimmed and starts, after an optional sign, with P or p. It returns
// the duration or a non-empty reason.
func parseISODuration(s string) (time.Duration, string) {
	negate := false
	if s[0] == '+' || s[0] == '-' {
		negate = s[0] == '-'
		s = s[1:]
	}
	s = s[1:] // P
	if s == "" {
		return 0, "no component after P (write PT2S, PT1M30S or P1DT2H)"
	}
	total := new(big.Int)
	components := 0

	// The date part: only days.
	for s != "" && s[0] != 'T' && s[0] != 't' {
		neg, mag, rest, reason := isoNumber(s)
		if reason != "" {
			return 0, reason
		}
		s = rest
		if s == "" {
			return 0, "missing designator after a number (D, or H, M, S after T)"
		}
		switch upper(s[0]) {
		case 'D':
			if components > 0 {
				return 0, "days given twice"
			}
		case 'Y', 'W':
			return 0, "years and weeks have no fixed length (use days, PnD, or a time, PTnH)"
		case 'M':
			return 0, "months have no fixed length (for minutes write PTnM)"
		case 'H', 'S':
			return 0, "hours and seconds go after T (such as PT2" + string(upper(s[0])) + ")"
		case '.', ',':
			return 0, "only seconds may have a fraction"
		default:
			return 0, "unexpected " + quoteFirst(s) + " in the date part (only days, D, go before T)"
		}
		s = s[1:]
		addComponent(total, neg, mag, 86400*int64(time.Second))
		components++
	}

	if s != "" { // s[0] is T
		s = s[1:]
		if s == "" {
			return 0, "T must be followed by hours, minutes or seconds (such as PT2S)"
		}
		last := 0 // 1 hours, 2 minutes, 3 seconds
		for s != "" {
			if s[0] == 'T' || s[0] == 't' {
				return 0, "T given twice"
			}
			neg, mag, rest, reason := isoNumber(s)
			if reason != "" {
				return 0, reason
			}
			s = rest
			frac := ""
			if s != "" && (s[0] == '.' || s[0] == ',') {
				i := 1
				for i < len(s) && isDigit(s[i]) {
					i++
				}
				frac = s[1:i]
				s = s[i:]
				if len(frac) > 9 {
					return 0, "more than nine digits of fraction (the smallest unit is a nanosecond)"
				}
				if s == "" || upper(s[0]) != 'S' {
					return 0, "only seconds may have a fraction"
				}
			}
			if s == "" {
				return 0, "missing designator after a number (H, M or S)"
			}
			var rank int
			var unit int64
			switch upper(s[0]) {
			case 'H':
				rank, unit = 1, 3600*int64(time.Second)
			case 'M':
				rank, unit = 2, 60*int64(time.Second)
			case 'S':
				rank, unit = 3, int64(time.Second)
			case 'D':
				return 0, "days go before T (write P1DT2H)"
			case 'Y', 'W':
				return 0, "years and weeks have no fixed length (use days, PnD, or a time, PTnH)"
			case 'T':
				return 0, "T given twice"
			default:
				return 0, "unexpected " + quoteFirst(s) + " in the time part (expected H, M or S)"
			}
			if rank <= last {
				return 0, "components out of order or repeated (the order is hours H, minutes M, seconds S)"
			}
			last = rank
			s = s[1:]
			addComponent(total, neg, mag, unit)
			if frac != "" {
				n, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
				addComponent(total, neg, uint64(n), 1)
			}
			components++
		}
	}
	if negate {
		total.Neg(total)
	}
	if !total.IsInt64() {
		return 0, reasonDurationRange
	}
	return time.Duration(total.Int64()), ""
}

// isoNumber reads an optionally signed run of ASCII digits at the start of
// s and returns its sign, its magnitude and the rest of s. Like Java's
// Long.parseLong it refuses magnitudes above 2^63; any such component is
// out of range for a time.Duration anyway.
func isoNumber(s string) (neg bool, mag uint64, rest string, reason string) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == i {
		if j < len(s) && (s[j] == '.' || s[j] == ',') {
			return false, 0, "", "a fraction needs digits before it (write PT0.5S)"
		}
		if j < len(s) && isLetter(s[j]) {
			return false, 0, "", "missing number before " + quoteFirst(s[j:])
		}
		if j == len(s) {
			return false, 0, "", "missing number at the end"
		}
		return false, 0, "", "unexpected " + quoteFirst(s[j:]) + " (expected a number)"
	}
	digits := strings.TrimLeft(s[i:j], "0")
	if len(digits) > 19 {
		return false, 0, "", reasonDurationRange
	}
	if digits != "" {
		var err error
		mag, err = strconv.ParseUint(digits, 10, 64)
		if err != nil || mag > math.MaxInt64+1 {
			return false, 0, "", reasonDurationRange
		}
	}
	return neg, mag, s[j:], ""
}

// addComponent adds ±mag×unit to total.
func addComponent(total *big.Int, neg bool, mag uint64, unit int64) {
	v := new(big.Int).SetUint64(mag)
	v.Mul(v, big.NewInt(unit))
	if neg {
		v.Neg(v)
	}
	total.Add(total, v)
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// quoteFirst quotes the first character of s, a whole UTF-8 sequence when
// it starts one.
func quoteFirst(s string) string {
	for _, r := range s {
		return strconv.QuoteRune(r)
	}
	return `""`
}
