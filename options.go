package r4c

import "os"

// EnvPrefix starts the name of every environment variable the registry
// reads with WithEnvironment.
const EnvPrefix = "R4C_"

// WithProperties adds flat keys from a map, such as
// {"defaults.adaptiveLimit.maxLimit": "100"}. Keys have the forms
// defaults.<kind>.<key>, configs.<name>.<kind>.<key> and
// instances.<id>.<kind>.<key>; see docs/configuration.md. NewRegistry
// parses every value once and fails with a coded error on an unknown key
// or a value that does not parse; a value out of range is reported when
// its layer or instance is validated, with the key and text as given.
// [Registry.Reload] reads the same map again: change it only while no
// Reload runs.
func WithProperties(props map[string]string) Option {
	return optionFunc(func(r *Registry) error { return r.e.AddProperties(props) })
}

// WithPropertiesFile adds the flat keys of a Java-style .properties file
// (UTF-8), in file order. A file that cannot be read or parsed makes
// NewRegistry fail with R4C-REG-003. [Registry.Reload] reads the file
// again, and a [Watcher] polls it.
func WithPropertiesFile(path string) Option {
	return optionFunc(func(r *Registry) error { return r.e.AddPropertiesFile(path) })
}

// WithEnvironment adds the flat keys found in the process environment: a
// variable R4C_DEFAULTS_ADAPTIVELIMIT_MAXLIMIT=100 sets
// defaults.adaptiveLimit.maxLimit. Kinds and keys match case-insensitively;
// a configuration name or instance id is written upper case with every
// character other than a letter or digit as "_" (instance "order-api" is
// R4C_INSTANCES_ORDER_API_TIMEOUT_TIMEOUT). A variable with an empty part
// (R4C_INSTANCES__TIMEOUT_TIMEOUT) is R4C-REG-002. [Registry.Reload]
// reads the process environment again.
func WithEnvironment() Option {
	return optionFunc(func(r *Registry) error { return r.e.AddEnvFunc(os.Environ) })
}

// WithEnv is WithEnvironment over the given "NAME=value" list instead of the
// process environment, for tests. [Registry.Reload] reads the same list
// again.
func WithEnv(environ []string) Option {
	return optionFunc(func(r *Registry) error { return r.e.AddEnv(environ) })
}
