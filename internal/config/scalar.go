package config

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// ParseInt reads a decimal integer after trimming surrounding white space:
// an optional sign and ASCII digits ("42", "-7", "+007"). Underscores, base
// prefixes ("0x10"), fractions and exponents are rejected. A value outside
// the range of int is an error. Every error is a *SyntaxError with Kind
// KindInteger.
func ParseInt(s string) (int, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, &SyntaxError{Value: s, Kind: KindInteger, Reason: "empty value"}
	}
	n, err := strconv.ParseInt(t, 10, strconv.IntSize)
	if err != nil {
		reason := "not a decimal integer"
		if errors.Is(err, strconv.ErrRange) {
			reason = "out of range (must lie between " + strconv.Itoa(math.MinInt) + " and " + strconv.Itoa(math.MaxInt) + ")"
		} else if isDecimalNumber(t) {
			reason = "not an integer (no fraction or exponent allowed)"
		}
		return 0, &SyntaxError{Value: s, Kind: KindInteger, Reason: reason}
	}
	return int(n), nil
}

// ParseFloat reads a finite decimal number after trimming surrounding white
// space: an optional sign, digits with an optional fraction, and an optional
// exponent ("0.8", "-1.5", ".5", "2e-3"). NaN, infinities, values too large
// for a float64, hexadecimal forms and underscores are rejected. A value too
// small to represent reads as zero. Every error is a *SyntaxError with Kind
// KindNumber.
func ParseFloat(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, &SyntaxError{Value: s, Kind: KindNumber, Reason: "empty value"}
	}
	if !isDecimalNumber(t) {
		reason := "not a decimal number"
		switch strings.ToLower(strings.TrimLeft(t, "+-")) {
		case "nan", "inf", "infinity":
			reason = "not a finite number"
		}
		return 0, &SyntaxError{Value: s, Kind: KindNumber, Reason: reason}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		reason := "not a decimal number"
		if errors.Is(err, strconv.ErrRange) || err == nil {
			reason = "out of range (too large for a float64)"
		}
		return 0, &SyntaxError{Value: s, Kind: KindNumber, Reason: reason}
	}
	return f, nil
}

// isDecimalNumber reports whether s has the shape
// [+-]digits[.digits][(e|E)[+-]digits] with at least one digit in the
// mantissa.
func isDecimalNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == j {
			return false
		}
	}
	return i == len(s)
}

// ParseBool reads a boolean after trimming surrounding white space. It
// accepts, in any case, "true", "yes", "on" and "1" for true and "false",
// "no", "off" and "0" for false; anything else, including "t", "y" and the
// empty string, is a *SyntaxError with Kind KindBoolean.
func ParseBool(s string) (bool, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	reason := "expected true or false (also yes/no, on/off, 1/0)"
	if t == "" {
		reason = "empty value"
	}
	return false, &SyntaxError{Value: s, Kind: KindBoolean, Reason: reason}
}
