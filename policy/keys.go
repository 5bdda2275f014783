package policy

import (
	"encoding"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/resilience4cata/r4c/internal/config"
)

// The classes of a value that does not parse, returned by [Key.Set]. They
// follow the classes of shared.go; the registry turns them into R4C-ATR-001
// and R4C-ATR-002.
const (
	// ClassDurationSyntax: text that is neither a Go nor an ISO-8601
	// duration.
	ClassDurationSyntax Class = ClassCombination + 1 + iota
	// ClassSyntax: text that is not a number, a boolean or one of the names
	// of an enumeration.
	ClassSyntax
	// ClassNotLive: a new value for a key that cannot change while the
	// instance runs (its Key.Live is false). The registry turns it into
	// R4C-REG-011.
	ClassNotLive
)

// Key describes one flat configuration key of a policy's Config C: what the
// configuration reference (docs/configuration.md) says about it, and how to
// read its text into a Config. Each policy package declares its keys once,
// in its Keys table; the registry, the reference and the tests read them
// from there.
//
// Build a Key with [IntKey], [FloatKey], [DurationKey], [BoolKey],
// [EnabledKey] or [TextKey]. A Key is a small immutable value, safe for
// concurrent use; its methods allocate nothing except Set on error and
// Format.
type Key[C any] struct {
	// Name is the key as written after the kind in a flat key, such as
	// "maxLimit" in defaults.adaptiveLimit.maxLimit.
	Name string
	// Type is the text the key takes: "int", "float", "duration", "bool",
	// or the names of an enumeration joined by "|".
	Type string
	// Default is the built-in default as the reference shows it, made from
	// the package's Default constants.
	Default string
	// Valid is the valid range, in words; [Config.Validate] of the policy
	// enforces it.
	Valid string
	// Doc says what the key does, in one line.
	Doc string
	// Live reports whether the key can change while its instance runs
	// (Registry.Reload, the handle's setters); LiveDoc says from when the
	// new value applies, such as "from the next permit". A key that is not
	// live is refused with [ClassNotLive] (R4C-REG-011): restart, or build
	// a new instance.
	Live    bool
	LiveDoc string

	field keyField[C]
}

// keyField is the typed half of a Key: the Config field it reads and
// writes.
type keyField[C any] interface {
	parse(c *C, name, text string) error
	isZero(c *C) bool
	zero(c *C)
	copy(dst, src *C)
	value(c *C) any
	format(c *C) string
}

// Set parses text as the key's type and stores it in c. It checks syntax
// only: a value out of range parses, and the policy's Validate rejects it.
// A text that does not parse is a [*FieldError] whose Key is the key's
// name, whose Value is text as given and whose Class is
// [ClassDurationSyntax] or [ClassSyntax]; c is then unchanged.
func (k Key[C]) Set(c *C, text string) error { return k.field.parse(c, k.Name, text) }

// IsZero reports whether the key's field of c holds its zero value (for
// "enabled": whether Disabled is false).
func (k Key[C]) IsZero(c *C) bool { return k.field.isZero(c) }

// Zero sets the key's field of c to its zero value.
func (k Key[C]) Zero(c *C) { k.field.zero(c) }

// Copy copies the key's field from src to dst.
func (k Key[C]) Copy(dst, src *C) { k.field.copy(dst, src) }

// Value returns the key's field of c as a comparable value (an int, a
// float64, a time.Duration, a bool or the enumeration): two Configs hold
// the same setting for the key when their Values are ==.
func (k Key[C]) Value(c *C) any { return k.field.value(c) }

// Format returns the key's field of c as text that Set reads back, such as
// "200", "1.5s" or "count-based".
func (k Key[C]) Format(c *C) string { return k.field.format(c) }

// Note returns k with note added to its Default in brackets, for a default
// that depends on other keys: "20 (moved into [minLimit, maxLimit] if
// unset)".
func (k Key[C]) Note(note string) Key[C] {
	k.Default += " (" + note + ")"
	return k
}

// Derived returns k with its Default replaced by text, for a default that
// is another key's value rather than a constant: burst defaults to "limit".
func (k Key[C]) Derived(text string) Key[C] {
	k.Default = text
	return k
}

// LiveFrom returns k marked live-reloadable: a new value reaches the
// running instance, from the moment when says ("from the next permit").
func (k Key[C]) LiveFrom(when string) Key[C] {
	k.Live, k.LiveDoc = true, when
	return k
}

// IntKey declares an integer key stored in the int that field points to.
// def is the built-in default (a Default constant of the package).
func IntKey[C any](name string, def int, valid, doc string, field func(*C) *int) Key[C] {
	return Key[C]{Name: name, Type: "int", Default: strconv.Itoa(def), Valid: valid, Doc: doc,
		field: scalar[C, int]{ptr: field, read: config.ParseInt, write: strconv.Itoa}}
}

// FloatKey declares a decimal key stored in the float64 that field points
// to.
func FloatKey[C any](name string, def float64, valid, doc string, field func(*C) *float64) Key[C] {
	return Key[C]{Name: name, Type: "float", Default: Float(def), Valid: valid, Doc: doc,
		field: scalar[C, float64]{ptr: field, read: config.ParseFloat, write: Float}}
}

// DurationKey declares a duration key, in Go syntax ("500ms") or ISO-8601
// ("PT0.5S"), stored in the time.Duration that field points to.
func DurationKey[C any](name string, def time.Duration, valid, doc string, field func(*C) *time.Duration) Key[C] {
	return Key[C]{Name: name, Type: "duration", Default: shortDur(def), Valid: valid, Doc: doc,
		field: scalar[C, time.Duration]{ptr: field, read: config.ParseDuration, write: Dur}}
}

// BoolKey declares a boolean key stored in the bool that field points to.
func BoolKey[C any](name string, def bool, doc string, field func(*C) *bool) Key[C] {
	return Key[C]{Name: name, Type: "bool", Default: strconv.FormatBool(def), Valid: "true or false", Doc: doc,
		field: scalar[C, bool]{ptr: field, read: config.ParseBool, write: strconv.FormatBool}}
}

// EnabledKeyName is the name of the key every policy has: enabled=false
// sets its Config's Disabled field.
const EnabledKeyName = "enabled"

// EnabledKey declares the key "enabled", the inverse of the Disabled field
// that disabled points to: enabled=false sets Disabled, enabled=true clears
// it. Its default is true.
func EnabledKey[C any](doc string, disabled func(*C) *bool) Key[C] {
	return Key[C]{Name: EnabledKeyName, Type: "bool", Default: "true", Valid: "true or false", Doc: doc,
		field: enabled[C]{ptr: disabled}}
}

// TextKey declares a key whose values are the names of an enumeration E
// (a comparable type with MarshalText, whose pointer has UnmarshalText),
// parsed only by E's UnmarshalText and written by its MarshalText; values
// lists them in the order the reference shows. An error from UnmarshalText
// becomes a [*FieldError] of class [ClassSyntax] with its rule.
func TextKey[C any, E interface {
	comparable
	encoding.TextMarshaler
}, P interface {
	*E
	encoding.TextUnmarshaler
}](name string, def E, valid, doc string, field func(*C) *E, values ...E) Key[C] {
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = text(v)
	}
	if valid == "" {
		valid = "one of " + strings.Join(names, ", ")
	}
	return Key[C]{Name: name, Type: strings.Join(names, "|"), Default: text(def), Valid: valid, Doc: doc,
		field: textField[C, E, P]{ptr: field}}
}

func text[E encoding.TextMarshaler](v E) string {
	b, err := v.MarshalText()
	if err != nil {
		return "unknown"
	}
	return string(b)
}

// scalar is the field of an int, float, duration or bool key.
type scalar[C any, T comparable] struct {
	ptr   func(*C) *T
	read  func(string) (T, error)
	write func(T) string
}

func (f scalar[C, T]) parse(c *C, name, text string) error {
	v, err := f.read(text)
	if err != nil {
		return syntaxError(name, text, err)
	}
	*f.ptr(c) = v
	return nil
}

func (f scalar[C, T]) isZero(c *C) bool {
	var z T
	return *f.ptr(c) == z
}
func (f scalar[C, T]) zero(c *C)          { var z T; *f.ptr(c) = z }
func (f scalar[C, T]) copy(dst, src *C)   { *f.ptr(dst) = *f.ptr(src) }
func (f scalar[C, T]) value(c *C) any     { return *f.ptr(c) }
func (f scalar[C, T]) format(c *C) string { return f.write(*f.ptr(c)) }

// syntaxError turns a parser's error into a FieldError.
func syntaxError(name, text string, err error) error {
	fe := &FieldError{Key: name, Value: text, Rule: err.Error(), Class: ClassSyntax}
	var se *config.SyntaxError
	if errors.As(err, &se) {
		fe.Rule = se.Reason
		if se.Kind == config.KindDuration {
			fe.Class = ClassDurationSyntax
		}
	}
	return fe
}

// enabled is the field of the key "enabled": the inverse of Disabled.
type enabled[C any] struct{ ptr func(*C) *bool }

func (f enabled[C]) parse(c *C, name, text string) error {
	v, err := config.ParseBool(text)
	if err != nil {
		return syntaxError(name, text, err)
	}
	*f.ptr(c) = !v
	return nil
}
func (f enabled[C]) isZero(c *C) bool   { return !*f.ptr(c) }
func (f enabled[C]) zero(c *C)          { *f.ptr(c) = false }
func (f enabled[C]) copy(dst, src *C)   { *f.ptr(dst) = *f.ptr(src) }
func (f enabled[C]) value(c *C) any     { return *f.ptr(c) }
func (f enabled[C]) format(c *C) string { return strconv.FormatBool(!*f.ptr(c)) }

// textField is the field of an enumeration key.
type textField[C any, E interface {
	comparable
	encoding.TextMarshaler
}, P interface {
	*E
	encoding.TextUnmarshaler
}] struct{ ptr func(*C) *E }

func (f textField[C, E, P]) parse(c *C, name, text string) error {
	var v E
	if err := P(&v).UnmarshalText([]byte(text)); err != nil {
		rule := err.Error()
		var fe *FieldError
		if errors.As(err, &fe) {
			rule = fe.Rule
		}
		return &FieldError{Key: name, Value: text, Rule: rule, Class: ClassSyntax}
	}
	*f.ptr(c) = v
	return nil
}
func (f textField[C, E, P]) isZero(c *C) bool {
	var z E
	return *f.ptr(c) == z
}
func (f textField[C, E, P]) zero(c *C)          { var z E; *f.ptr(c) = z }
func (f textField[C, E, P]) copy(dst, src *C)   { *f.ptr(dst) = *f.ptr(src) }
func (f textField[C, E, P]) value(c *C) any     { return *f.ptr(c) }
func (f textField[C, E, P]) format(c *C) string { return text(*f.ptr(c)) }

// shortDur formats d the way the configuration reference writes defaults:
// "0", "500ms", "1s", "1m", "24h" (Dur without a trailing "0s" or "0m").
func shortDur(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	s := d.String()
	if t, ok := strings.CutSuffix(s, "m0s"); ok {
		s = t + "m"
	}
	if t, ok := strings.CutSuffix(s, "h0m"); ok {
		s = t + "h"
	}
	return s
}

// CodeField describes a field of a Config that only code sets: an error
// list, a predicate, a function or a value. The registry copies it from a
// code layer that sets it (a field is set when it is not its zero value:
// a non-nil slice, func or interface) and records which layer it came
// from, so that a shared instance never gets it from a builder silently.
type CodeField[C any] struct {
	// Name is the Go name of the field, such as "DropOn".
	Name string

	isSet func(*C) bool
	copy  func(dst, src *C)
}

// CodeOnly declares the code-only field that field points to, called name.
func CodeOnly[C any, T any](name string, field func(*C) *T) CodeField[C] {
	return CodeField[C]{
		Name:  name,
		isSet: func(c *C) bool { return !reflect.ValueOf(field(c)).Elem().IsZero() },
		copy:  func(dst, src *C) { *field(dst) = *field(src) },
	}
}

// IsSet reports whether c sets the field.
func (f CodeField[C]) IsSet(c *C) bool { return f.isSet(c) }

// Copy copies the field from src to dst.
func (f CodeField[C]) Copy(dst, src *C) { f.copy(dst, src) }

// ZeroSet records the keys of a Config that a layer of code sets to their
// zero value on purpose (the Config's SetZero and Enable methods), since a
// zero field otherwise means "not set here". Each policy's Config holds one
// in an unexported field; WithDefaults leaves a recorded key at zero
// instead of filling in its default, and the registry applies the zero
// over the layers below.
//
// The zero ZeroSet records nothing. A ZeroSet is a value inside its Config:
// copying the Config copies it, and a change to the copy never reaches the
// original. It is not safe for concurrent mutation.
type ZeroSet struct {
	names  []string // as given to Add, in order
	enable bool     // Enable was called
}

// Add records names, as given: unknown names and "enabled" are reported by
// the Table's CheckZeroes (and so by Validate and the registry).
func (z *ZeroSet) Add(names ...string) {
	for _, n := range names {
		if !slices.Contains(z.names, n) {
			// Clip first: a copy of the Config must not see the new name.
			z.names = append(slices.Clip(z.names), n)
		}
	}
}

// Enable records that Disabled is set to false on purpose (the key
// "enabled" set to true).
func (z *ZeroSet) Enable() { z.enable = true }

// Remove forgets name, when a higher layer sets its key to a value again.
func (z *ZeroSet) Remove(name string) {
	if name == EnabledKeyName {
		z.enable = false
		return
	}
	if i := slices.Index(z.names, name); i >= 0 {
		z.names = slices.Delete(slices.Clone(z.names), i, i+1)
	}
}

// Has reports whether the key name is recorded as set to zero on purpose:
// for "enabled", whether Enable was called.
func (z ZeroSet) Has(name string) bool {
	if name == EnabledKeyName {
		return z.enable
	}
	return slices.Contains(z.names, name)
}

// Names returns the names given to Add, in order, as a new slice.
func (z ZeroSet) Names() []string { return slices.Clone(z.names) }

// Table is the configuration table of one policy's Config C: its flat keys
// in the order the reference lists them, its code-only fields, and access
// to the fields every Config has (Name, BaseConfig and the ZeroSet behind
// SetZero and Enable). Each policy package returns its own from Keys().
//
// Together the keys and the code-only fields cover every exported field of
// C except Name and BaseConfig (a test of each package checks it). A Table
// is immutable and safe for concurrent use.
type Table[C any] struct {
	keys       []Key[C]
	code       []CodeField[C]
	name, base func(*C) *string
	zeroes     func(*C) *ZeroSet
}

// NewTable returns the table of keys and code-only fields of C. name and
// base point to the Config's Name and BaseConfig fields, zeroes to its
// ZeroSet.
func NewTable[C any](name, base func(*C) *string, zeroes func(*C) *ZeroSet, keys []Key[C], code ...CodeField[C]) *Table[C] {
	return &Table[C]{keys: slices.Clone(keys), code: slices.Clone(code), name: name, base: base, zeroes: zeroes}
}

// Keys returns the keys, in the order of the reference, as a new slice.
func (t *Table[C]) Keys() []Key[C] { return slices.Clone(t.keys) }

// Len returns the number of keys.
func (t *Table[C]) Len() int { return len(t.keys) }

// At returns key i, for 0 <= i < Len().
func (t *Table[C]) At(i int) Key[C] { return t.keys[i] }

// Index returns the position of the key called name, or -1.
func (t *Table[C]) Index(name string) int {
	for i := range t.keys {
		if t.keys[i].Name == name {
			return i
		}
	}
	return -1
}

// Names returns the names of the keys, in order.
func (t *Table[C]) Names() []string {
	names := make([]string, len(t.keys))
	for i, k := range t.keys {
		names[i] = k.Name
	}
	return names
}

// Code returns the code-only fields, as a new slice.
func (t *Table[C]) Code() []CodeField[C] { return slices.Clone(t.code) }

// Name returns a pointer to c's Name field.
func (t *Table[C]) Name(c *C) *string { return t.name(c) }

// BaseConfig returns a pointer to c's BaseConfig field.
func (t *Table[C]) BaseConfig(c *C) *string { return t.base(c) }

// Zeroes returns a pointer to c's ZeroSet.
func (t *Table[C]) Zeroes(c *C) *ZeroSet { return t.zeroes(c) }

// SetZero records names in c's ZeroSet and sets each key named that is not
// "enabled" to its zero value in c: what every Config's SetZero does.
func (t *Table[C]) SetZero(c *C, names ...string) {
	t.zeroes(c).Add(names...)
	for _, n := range names {
		if i := t.Index(n); i >= 0 && n != EnabledKeyName {
			t.keys[i].Zero(c)
		}
	}
}

// Enable clears c's Disabled field (the key "enabled" set to true) and
// records it in c's ZeroSet: what every Config's Enable does.
func (t *Table[C]) Enable(c *C) {
	if i := t.Index(EnabledKeyName); i >= 0 {
		t.keys[i].Zero(c)
	}
	t.zeroes(c).Enable()
}

// ZeroError reports a name given to a Config's SetZero that it cannot take:
// a name that is none of the Config's keys, or "enabled" (whose zero,
// Disabled false, is set with Enable).
type ZeroError struct {
	// Name is the name given to SetZero.
	Name string
	// Rule says why it is refused, with the nearest key when there is one.
	Rule string
}

// Error returns `SetZero("<name>"): <rule>`.
func (e *ZeroError) Error() string { return "SetZero(" + strconv.Quote(e.Name) + "): " + e.Rule }

// CheckZeroes returns a [*ZeroError] for the first name given to c's
// SetZero that is not one of t's keys, or is "enabled"; nil when every name
// is a key.
func (t *Table[C]) CheckZeroes(c *C) error {
	for _, n := range t.zeroes(c).names {
		if n == EnabledKeyName {
			return &ZeroError{Name: n, Rule: "enabled is the inverse of Disabled, so its zero would read as \"disabled\"; " +
				"call Enable() to force enabled=true over a lower layer, or set Disabled = true"}
		}
		if t.Index(n) < 0 {
			rule := "no such key; SetZero takes the flat key names of docs/configuration.md"
			if s := config.Suggest(n, t.Names()); s != "" {
				rule += " (did you mean " + strconv.Quote(s) + "?)"
			}
			return &ZeroError{Name: n, Rule: rule}
		}
	}
	return nil
}
