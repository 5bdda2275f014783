package r4c

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/resilience4cata/r4c/internal/config"
	"github.com/resilience4cata/r4c/policy"
)

// field is one flat key of a policy kind: how to parse it into the kind's
// Config, and what docs/configuration.md says about it.
type field[C any] struct {
	key   string // the setting, such as "maxLimit"
	typ   string // "int", "float", "duration", "bool" or a choice such as "gradient2|aimd|vegas"
	def   string // the built-in default, as text
	valid string // the valid range, in words
	doc   string // one line
	set   func(c *C, v string) error
}

// parseError turns a parser's error into a FieldError-like ConfigError
// piece: the code depends on what failed to parse.
func syntaxCode(err error) string {
	var se *config.SyntaxError
	if errors.As(err, &se) && se.Kind == "duration" {
		return CodeDurationSyntax
	}
	return CodeValueSyntax
}

func intField[C any](key, def, valid, doc string, min int, ptr func(*C) *int) field[C] {
	return field[C]{key: key, typ: "int", def: def, valid: valid, doc: doc, set: func(c *C, v string) error {
		n, err := config.ParseInt(v)
		if err != nil {
			return err
		}
		if n < min {
			return &policy.FieldError{Key: key, Value: v, Rule: fmt.Sprintf("must be at least %d", min), Class: boundClass(min)}
		}
		*ptr(c) = n
		return nil
	}}
}

func boundClass(min int) policy.Class {
	if min == 1 {
		return policy.ClassBound
	}
	return policy.ClassRange
}

// floatField parses a float; zero is refused when zeroOK is false, since a
// zero would read as "not set".
func floatField[C any](key, def, valid, doc string, check func(float64) string, ptr func(*C) *float64) field[C] {
	return field[C]{key: key, typ: "float", def: def, valid: valid, doc: doc, set: func(c *C, v string) error {
		f, err := config.ParseFloat(v)
		if err != nil {
			return err
		}
		if rule := check(f); rule != "" {
			return &policy.FieldError{Key: key, Value: v, Rule: rule, Class: policy.ClassRange}
		}
		*ptr(c) = f
		return nil
	}}
}

// durField parses a duration in Go or ISO-8601 syntax. positive requires
// d > 0 (zero would read as "not set"); otherwise d >= 0.
func durField[C any](key, def, valid, doc string, positive bool, ptr func(*C) *time.Duration) field[C] {
	return field[C]{key: key, typ: "duration", def: def, valid: valid, doc: doc, set: func(c *C, v string) error {
		d, err := config.ParseDuration(v)
		if err != nil {
			return err
		}
		if d < 0 || (positive && d == 0) {
			rule := "must not be negative"
			if positive {
				rule = "must be positive"
			}
			return &policy.FieldError{Key: key, Value: v, Rule: rule, Class: policy.ClassDuration}
		}
		*ptr(c) = d
		return nil
	}}
}

func boolField[C any](key, def, doc string, ptr func(*C) *bool) field[C] {
	return field[C]{key: key, typ: "bool", def: def, valid: "true or false", doc: doc, set: func(c *C, v string) error {
		b, err := config.ParseBool(v)
		if err != nil {
			return err
		}
		*ptr(c) = b
		return nil
	}}
}

// enabledField maps the external key enabled onto a Config's Disabled flag.
func enabledField[C any](ptr func(*C) *bool) field[C] {
	return field[C]{key: "enabled", typ: "bool", def: "true", valid: "true or false", doc: "false lets every call pass untouched", set: func(c *C, v string) error {
		b, err := config.ParseBool(v)
		if err != nil {
			return err
		}
		*ptr(c) = !b
		return nil
	}}
}

// choiceField parses one of a fixed set of names, case-insensitively.
func choiceField[C any, E ~uint8](key, def, doc string, names map[string]E, ptr func(*C) *E) field[C] {
	var opts []string
	for n := range names {
		opts = append(opts, n)
	}
	slices.Sort(opts)
	typ := strings.Join(opts, "|")
	return field[C]{key: key, typ: typ, def: def, valid: "one of " + strings.Join(opts, ", "), doc: doc, set: func(c *C, v string) error {
		e, ok := names[strings.ToLower(strings.TrimSpace(v))]
		if !ok {
			return &config.SyntaxError{Value: v, Kind: "choice", Reason: "must be one of " + strings.Join(opts, ", ")}
		}
		*ptr(c) = e
		return nil
	}}
}

// mergeSet copies every field of src that is not its zero value over dst:
// a code layer says only what it sets. Funcs and slices count as set when
// not nil.
func mergeSet[C any](dst *C, src *C) {
	dv := reflect.ValueOf(dst).Elem()
	sv := reflect.ValueOf(src).Elem()
	for i := 0; i < sv.NumField(); i++ {
		f := sv.Field(i)
		if !f.IsZero() && dv.Field(i).CanSet() {
			dv.Field(i).Set(f)
		}
	}
}

// sameConfig reports whether two resolved configurations are the same:
// fields compared by value, except funcs (compared by code pointer) and
// error lists (compared element by element with ==).
func sameConfig[C any](a, b C) bool {
	return sameValue(reflect.ValueOf(a), reflect.ValueOf(b))
}

func sameValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Func:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Pointer() == b.Pointer()
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Elem().Type() != b.Elem().Type() {
			return false
		}
		if a.Elem().Comparable() {
			return a.Equal(b)
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.UnsafePointer:
		return a.Pointer() == b.Pointer()
	default:
		return a.Equal(b)
	}
}
