// Package config parses the values and files that configure r4c from
// outside: durations, integers, numbers and booleans given as text,
// Java-style .properties files, and environment variables. It also
// suggests the nearest known key for a misspelt one.
//
// Every function is pure: it reads only its arguments, keeps no state and
// is safe for concurrent use. The package knows nothing of policy kinds or
// key names; the registry maps flat keys to Config fields and turns the
// errors returned here into coded errors.
//
// # Values
//
// [ParseDuration], [ParseInt], [ParseFloat] and [ParseBool] trim
// surrounding white space and report a bad value as a [*SyntaxError] that
// names the value, its kind and the rule it breaks. None of them judges the
// range a policy needs: a negative duration parses, and the policy's
// Validate rejects it with its own error class.
//
// Durations take two syntaxes:
//
//   - Go syntax, exactly as [time.ParseDuration] reads it: "500ms", "2s",
//     "1h30m", "-1.5s", "0". A unit is required except for "0"; units are
//     case-sensitive (ns, us, µs, ms, s, m, h).
//   - ISO-8601, exactly the subset Java's Duration.parse reads: an optional
//     sign, P, then days (D), and after T hours (H), minutes (M) and seconds
//     (S) in that order, each with an optional sign of its own; only the
//     seconds may have a fraction (up to nine digits, after "." or ",").
//     Letters are case-insensitive: "PT0.5S", "pt2s", "P1DT2H", "-PT1S",
//     "PT-1S", "PT1M-30S". Years, months and weeks are rejected: they have no
//     fixed length.
//
// A duration beyond what [time.Duration] holds (about ±292 years) is an
// error, never a wrap-around.
//
// Booleans are true/false, yes/no, on/off and 1/0, case-insensitive.
// Integers are decimal with an optional sign; numbers are decimal with an
// optional fraction and exponent, and must be finite.
//
// # Properties files
//
// [ParseProperties] and [ParsePropertiesEntries] read the syntax of Java's
// Properties.load, with the file decoded as UTF-8 instead of Latin-1. See
// [ParsePropertiesEntries] for the rules.
package config
