package engine

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/resilience4cata/r4c/internal/config"
	"github.com/resilience4cata/r4c/policy"
)

// Code is the kind of a configuration error. Package r4c maps each Code to
// its public text, such as "R4C-ATR-001".
type Code uint8

// The codes, in the order of docs/errors.md.
const (
	DurationSyntax   Code = iota + 1 // R4C-ATR-001
	ValueSyntax                      // R4C-ATR-002
	BoundBelowOne                    // R4C-ATR-003
	NegativeDuration                 // R4C-ATR-004
	OutOfRange                       // R4C-ATR-005
	BoundsOrder                      // R4C-ATR-009
	Combination                      // R4C-ATR-010
	InvalidInCode                    // R4C-REG-001
	UnknownKey                       // R4C-REG-002
	Source                           // R4C-REG-003
	UnknownConfig                    // R4C-REG-004
	Builder                          // R4C-REG-005
	SharedMismatch                   // R4C-REG-008
	UnknownInstance                  // R4C-REG-009
	UnusedKey                        // R4C-REG-010
	NotLive                          // R4C-REG-011

	// NumCodes is one more than the last code.
	NumCodes
)

// Error is a coded configuration error of the engine. Package r4c turns it
// into an *r4c.ConfigError with the same fields.
type Error struct {
	Code  Code
	Key   string // the flat key (or variable) as given, or the one that applies
	Value string // the value as given, or the offending value as text
	Rule  string // the rule broken, in words
	Err   error  // the underlying error, if any
}

// Error returns "engine error <code> <key>=<value>: <rule>"; package r4c
// writes the public form.
func (e *Error) Error() string {
	return "engine error " + strconv.Itoa(int(e.Code)) + " " + e.Key + "=" + e.Value + ": " + e.Rule
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// ClassCode maps the family of a broken rule to its code.
func ClassCode(c policy.Class) Code {
	switch c {
	case policy.ClassBound:
		return BoundBelowOne
	case policy.ClassOrder:
		return BoundsOrder
	case policy.ClassDuration:
		return NegativeDuration
	case policy.ClassCombination:
		return Combination
	case policy.ClassDurationSyntax:
		return DurationSyntax
	case policy.ClassSyntax:
		return ValueSyntax
	case policy.ClassNotLive:
		return NotLive
	default:
		return OutOfRange
	}
}

// StageError turns an error from a policy's Stage constructor (such as a
// fallback value that is not the pipeline's result type) into a coded
// error of the instance id of the kind called kindName.
func StageError(kindName, id string, err error) error {
	var fe *policy.FieldError
	if errors.As(err, &fe) {
		return &Error{Code: ClassCode(fe.Class), Key: "instances." + id + "." + kindName + "." + fe.Key, Value: fe.Value, Rule: fe.Rule, Err: err}
	}
	return &Error{Code: Combination, Key: "instances." + id + "." + kindName, Rule: err.Error(), Err: err}
}

// suggestion returns ` (did you mean "x"?)` for the candidate nearest to
// word, or "".
func suggestion(word string, candidates []string) string {
	if s := config.Suggest(word, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
