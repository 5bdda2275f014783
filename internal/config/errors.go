package config

import "strconv"

// Kinds of value named by [SyntaxError.Kind].
const (
	// KindDuration is the kind of a value read by ParseDuration.
	KindDuration = "duration"
	// KindInteger is the kind of a value read by ParseInt.
	KindInteger = "integer"
	// KindNumber is the kind of a value read by ParseFloat.
	KindNumber = "number"
	// KindBoolean is the kind of a value read by ParseBool.
	KindBoolean = "boolean"
)

// SyntaxError reports a value that cannot be read as its kind. It is
// returned by ParseDuration, ParseInt, ParseFloat and ParseBool.
type SyntaxError struct {
	// Value is the text as given, before trimming.
	Value string
	// Kind is one of KindDuration, KindInteger, KindNumber, KindBoolean.
	Kind string
	// Reason says which rule the value breaks, in lowercase words without
	// trailing punctuation, such as `unknown unit "sec" (use ns, us, ms,
	// s, m or h, or ISO-8601 such as PT2S)`.
	Reason string
}

// Error returns `config: invalid <kind> "<value>": <reason>`.
func (e *SyntaxError) Error() string {
	return "config: invalid " + e.Kind + " " + strconv.Quote(e.Value) + ": " + e.Reason
}

// PropertiesError reports a properties file that cannot be read. It is
// returned by ParseProperties and ParsePropertiesEntries.
type PropertiesError struct {
	// Line is the 1-based number of the physical line where the problem
	// is. Lines end at "\n", "\r" or "\r\n".
	Line int
	// Reason says what is wrong, such as `malformed \uXXXX escape "\u12G4"`.
	Reason string
}

// Error returns "config: properties line <n>: <reason>".
func (e *PropertiesError) Error() string {
	return "config: properties line " + strconv.Itoa(e.Line) + ": " + e.Reason
}
