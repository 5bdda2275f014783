package policy

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// ErrCallTimeout is the sentinel of a call whose timeout fired. Package
// timeout re-exports it as timeout.ErrCallTimeout; it lives here so that the
// adaptive limit can count a timeout inside it as a drop without importing
// its sibling.
var ErrCallTimeout = errors.New("r4c: call timed out")

// ErrBulkheadFull is the sentinel of a call rejected by a full bulkhead,
// re-exported as bulkhead.ErrFull.
var ErrBulkheadFull = errors.New("r4c: bulkhead full")

// Matches reports whether err matches one of errs (with errors.Is) or
// satisfies pred (when pred is not nil; it is asked only when no entry of
// errs matched). A nil err matches nothing. It allocates nothing.
func Matches(err error, errs []error, pred func(error) bool) bool {
	if err == nil {
		return false
	}
	for _, target := range errs {
		if errors.Is(err, target) {
			return true
		}
	}
	return pred != nil && pred(err)
}

// CallerCancelled reports whether err is the caller's own cancellation: ctx
// (the caller's context) is done and err matches context.Canceled or
// context.DeadlineExceeded with errors.Is (future.ErrCancelled matches
// context.Canceled). Such an outcome is never a failure, a sample or a
// reason to retry: it says nothing about the dependency. A DeadlineExceeded
// from a deadline of a stage's own, with the caller's ctx still live, is
// not the caller's. It allocates nothing.
func CallerCancelled(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() == nil {
		return false
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Class is the family of rule a [FieldError] breaks. The registry turns it
// into an error code.
type Class uint8

const (
	// ClassRange: a value outside its valid range (a ratio, a rate).
	ClassRange Class = iota
	// ClassBound: a bound or count below 1.
	ClassBound
	// ClassOrder: bounds out of order, or a window out of range.
	ClassOrder
	// ClassDuration: a duration that must not be negative (or zero) is.
	ClassDuration
	// ClassCombination: settings that cannot be used together.
	ClassCombination
)

// FieldError reports a configuration value that breaks a rule. Config
// Validate methods return it; the registry wraps it in a coded
// r4c.ConfigError with the full key.
type FieldError struct {
	// Key is the setting's flat-key name within its kind, such as "minLimit".
	Key string
	// Value is the offending value, as text.
	Value string
	// Rule says what the value must be, such as "must be at least 1".
	Rule string
	// Class is the family of the rule.
	Class Class
}

// Error returns "<key>=<value>: <rule>".
func (e *FieldError) Error() string { return e.Key + "=" + e.Value + ": " + e.Rule }

// Int formats v for [FieldError.Value], such as "0".
func Int(v int) string { return strconv.Itoa(v) }

// Float formats v for [FieldError.Value] in the shortest form that reads
// back exactly, such as "1.5".
func Float(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Dur formats v for [FieldError.Value] the way time.Duration prints, such
// as "-1s".
func Dur(v time.Duration) string { return v.String() }
