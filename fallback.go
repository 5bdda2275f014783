package r4c

import (
	"errors"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/fallback"
)

type fallbackStore = store[fallback.Config, *fallback.Fallback]

// The fallback's value and function exist in code only; from outside it
// can only be switched off.
var fallbackKind = &kind[fallback.Config, *fallback.Fallback]{
	key:      "fallback",
	defaults: fallback.Config.WithDefaults,
	validate: fallback.Config.Validate,
	build:    fallback.New,
	names:    func(c *fallback.Config) (*string, *string) { return &c.Name, &c.BaseConfig },
	fields: []field[fallback.Config]{
		enabledField(func(c *fallback.Config) *bool { return &c.Disabled }),
	},
}

// WithFallbackDefaults sets what every fallback of the registry starts
// from; see [WithAdaptiveLimitDefaults] for the rules.
func WithFallbackDefaults(configure func(*fallback.Config)) Option {
	return defaultsOption(func(r *Registry) *fallbackStore { return r.fallback }, configure)
}

// WithFallbackConfig defines (or adds to) the named fallback configuration
// name, used through Config.BaseConfig.
func WithFallbackConfig(name string, configure func(*fallback.Config)) Option {
	return configOption(func(r *Registry) *fallbackStore { return r.fallback }, name, configure)
}

// Fallback returns the handle of the fallback with this id. An unknown id is
// an R4C-REG-009 error.
func (r *Registry) Fallback(id string) (*fallback.Handle, error) {
	x, err := lookup(r, r.fallback, id)
	if err != nil {
		return nil, err
	}
	return x.Handle(), nil
}

// Fallback resolves the fallback of a pipeline called pipeline; see
// [Tx.AdaptiveLimit].
func (tx *Tx) Fallback(pipeline string, configure func(*fallback.Config)) (*fallback.Fallback, error) {
	x, _, err := resolveIn(tx, tx.r.fallback, pipeline, configure)
	return x, err
}

// StageError turns an error from a policy's Stage constructor (such as a
// fallback value that is not the pipeline's result type) into a coded
// configuration error for the instance id of kind kindKey.
func StageError(kindKey, id string, err error) error {
	var fe *policy.FieldError
	if errors.As(err, &fe) {
		return &ConfigError{Code: classCode(fe.Class), Key: "instances." + id + "." + kindKey + "." + fe.Key, Value: fe.Value, Rule: fe.Rule, Err: err}
	}
	return &ConfigError{Code: CodeCombination, Key: "instances." + id + "." + kindKey, Rule: err.Error(), Err: err}
}
