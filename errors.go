package r4c

import (
	"errors"
	"strings"

	"github.com/resilience4cata/r4c/internal/engine"
	"github.com/resilience4cata/r4c/policy"
)

// ErrConfig is matched by every configuration error: errors.Is(err,
// r4c.ErrConfig) tells a bad configuration from any other failure to build.
var ErrConfig = errors.New("r4c: invalid configuration")

// The error codes. Every ConfigError carries one, and its message starts
// with it, so logs can be searched by code. docs/errors.md lists them all
// with their causes and cures.
const (
	// CodeDurationSyntax: a duration that is neither Go syntax nor ISO-8601.
	CodeDurationSyntax = "R4C-ATR-001"
	// CodeValueSyntax: a number, boolean or choice that does not parse.
	CodeValueSyntax = "R4C-ATR-002"
	// CodeBoundBelowOne: a bound or count below 1.
	CodeBoundBelowOne = "R4C-ATR-003"
	// CodeNegativeDuration: a duration below its minimum (negative, or zero where zero is meaningless).
	CodeNegativeDuration = "R4C-ATR-004"
	// CodeOutOfRange: a ratio, threshold or rate outside its valid range.
	CodeOutOfRange = "R4C-ATR-005"
	// CodeBoundsOrder: bounds out of order, or a window out of range.
	CodeBoundsOrder = "R4C-ATR-009"
	// CodeCombination: settings that cannot be used together, or a value of the wrong type.
	CodeCombination = "R4C-ATR-010"
	// CodeInvalidInCode: an invalid value given in a registry option in code.
	CodeInvalidInCode = "R4C-REG-001"
	// CodeUnknownKey: an external key whose scope, kind or setting does not exist.
	CodeUnknownKey = "R4C-REG-002"
	// CodeSource: an external source that cannot be read or parsed.
	CodeSource = "R4C-REG-003"
	// CodeUnknownConfig: a BaseConfig naming no configuration.
	CodeUnknownConfig = "R4C-REG-004"
	// CodeBuilder: a pipeline builder used wrongly (no name, used twice, nil function).
	CodeBuilder = "R4C-REG-005"
	// CodeSharedMismatch: one instance name resolving to two configurations.
	CodeSharedMismatch = "R4C-REG-008"
	// CodeUnknownInstance: a handle asked for an id that no pipeline built.
	CodeUnknownInstance = "R4C-REG-009"
	// CodeUnusedKey: an external instance key that matches no instance
	// built (see Registry.CheckUnusedKeys).
	CodeUnusedKey = "R4C-REG-010"
	// CodeNotLive: a reload or a handle's setter that changes a key which
	// cannot change while its instance runs (see Registry.Reload).
	CodeNotLive = "R4C-REG-011"
)

// codes maps the engine's codes to the constants above.
var codes = [engine.NumCodes]string{
	engine.DurationSyntax:   CodeDurationSyntax,
	engine.ValueSyntax:      CodeValueSyntax,
	engine.BoundBelowOne:    CodeBoundBelowOne,
	engine.NegativeDuration: CodeNegativeDuration,
	engine.OutOfRange:       CodeOutOfRange,
	engine.BoundsOrder:      CodeBoundsOrder,
	engine.Combination:      CodeCombination,
	engine.InvalidInCode:    CodeInvalidInCode,
	engine.UnknownKey:       CodeUnknownKey,
	engine.Source:           CodeSource,
	engine.UnknownConfig:    CodeUnknownConfig,
	engine.Builder:          CodeBuilder,
	engine.SharedMismatch:   CodeSharedMismatch,
	engine.UnknownInstance:  CodeUnknownInstance,
	engine.UnusedKey:        CodeUnusedKey,
	engine.NotLive:          CodeNotLive,
}

// ClassCode returns the code the registry gives a rule of class c broken
// by a value set in a builder closure or by an external key (not by a
// registry option in code, which is always CodeInvalidInCode): such as
// CodeBoundBelowOne for policy.ClassBound, or CodeDurationSyntax for the
// policy.ClassDurationSyntax of a duration that does not parse. A class it
// does not know is CodeOutOfRange. Tools that check values against the
// policies' key tables before any registry exists, such as cmd/r4cgen,
// report with it the codes the registry would.
func ClassCode(c policy.Class) string { return codes[engine.ClassCode(c)] }

// export turns the engine's error into a *ConfigError; any other error
// passes unchanged.
func export(err error) error {
	e, ok := err.(*engine.Error)
	if !ok {
		return err
	}
	return &ConfigError{Code: codes[e.Code], Key: e.Key, Value: e.Value, Rule: e.Rule, Err: e.Err}
}

// ConfigError is a coded configuration error. It matches ErrConfig with
// errors.Is, and errors.As reaches it through any wrapping.
type ConfigError struct {
	// Code is the error code, such as "R4C-ATR-003".
	Code string
	// Key is the setting in flat-key form, such as
	// "instances.search.adaptiveLimit.minLimit"; empty when no key applies.
	Key string
	// Value is the offending value as text; empty when no value applies.
	Value string
	// Rule is the rule broken, in words.
	Rule string
	// Err is the underlying error, if any (a parser's error, or the
	// policy's own *policy.FieldError).
	Err error
}

// Error returns "<code> <key>=<value>: <rule>", starting with the code.
func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.Code)
	if e.Key != "" {
		b.WriteString(" ")
		b.WriteString(e.Key)
		if e.Value != "" || strings.HasPrefix(e.Code, "R4C-ATR-") {
			b.WriteString("=")
			b.WriteString(quoteIfNeeded(e.Value))
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Rule)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ConfigError) Unwrap() error { return e.Err }

// Is reports whether target is ErrConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

func quoteIfNeeded(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\n\"") {
		return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"`
	}
	return v
}
