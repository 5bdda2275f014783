package fallback

import (
	"context"

	"github.com/resilience4cata/r4c/policy"
)

// Config configures a fallback. It is plain data; the zero value of every
// field means "not set here": the registry fills it from the layer below.
// Only Name, BaseConfig and Disabled have flat keys (enabled); which errors
// to handle and what to return are code. To set Disabled back to false over
// a lower layer, use [Config.Enable].
type Config struct {
	// Name shares one fallback (and its figures) between pipelines: every
	// pipeline that gives the same Name uses the same instance. Default:
	// the pipeline's name. The core ignores it.
	Name string
	// BaseConfig starts from a named configuration of the registry. The
	// core ignores it.
	BaseConfig string
	// Disabled lets every outcome pass unchanged (flat key enabled=false).
	Disabled bool
	// HandleOn lists the errors the fallback handles, matched with
	// errors.Is. A nil entry matches nothing.
	HandleOn []error
	// HandleIf, when set, makes the fallback handle an error for which it
	// returns true, in addition to HandleOn.
	//
	// When HandleOn and HandleIf are both empty (the default), the fallback
	// handles every error. Whatever they say, it never handles the caller's
	// own cancellation (the caller's ctx is done and the error is its
	// context.Canceled or context.DeadlineExceeded) nor a cancelled future
	// (future.ErrCancelled).
	HandleIf func(error) bool
	// Value is what a call returns, with a nil error, when the fallback
	// handles its error. It must hold the pipeline's result type T (the
	// type assertion Value.(T) must succeed), else building the stage fails
	// ([Stage]). A nil Value stands for the zero value of T. Use [Return]
	// to set it with the type checked by the compiler.
	Value any
	// Func, when set, is called with the handled error (and the call's
	// ctx) and its outcome becomes the call's: it takes precedence over
	// Value. A nil result stands for the zero value of T; a result that is
	// not a T fails the call with a [*ResultTypeError]. Use [Call] to set
	// it with the types checked by the compiler.
	Func func(ctx context.Context, err error) (any, error)

	// zero records the keys set to zero on purpose (SetZero, Enable).
	zero policy.ZeroSet
}

// WithDefaults returns c unchanged: no setting of a fallback has a default
// to fill in (empty HandleOn and HandleIf mean "every error", a nil Value
// the zero value). It exists so that every policy's Config reads the same.
func (c Config) WithDefaults() Config { return c }

// Validate returns nil: every combination of settings is valid, except a
// name given to [Config.SetZero] that is no key, or is enabled (a
// [*policy.ZeroError]). Whether Value holds the pipeline's result type can
// only be checked once the type is known, by [Stage].
func (c Config) Validate() error { return keys.CheckZeroes(&c) }
