package r4c

import (
	"os"
	"sort"
	"strings"

	"github.com/resilience4cata/r4c/internal/config"
)

const (
	scopeDefaults  = "defaults"
	scopeConfigs   = "configs"
	scopeInstances = "instances"
)

// EnvPrefix starts the name of every environment variable the registry
// reads with WithEnvironment.
const EnvPrefix = "R4C_"

// external holds the flat keys given from outside, in the order given: a
// later entry for the same key wins.
type external struct {
	list []extEntry
}

type extEntry struct {
	key     string // as given: "configs.backend.adaptiveLimit.backoffRatio" or "R4C_..."
	scope   string
	name    string // config name or instance id; for env entries, normalised
	env     bool   // name is normalised (upper case, non-alphanumerics as _)
	kind    string // canonical kind key, resolved by check
	setting string // canonical setting, resolved by check
	value   string
	rawKind string
	rawSet  string
}

func newExternal() *external { return &external{} }

// WithProperties adds flat keys from a map, such as
// {"defaults.adaptiveLimit.maxLimit": "100"}. Keys have the forms
// defaults.<kind>.<setting>, configs.<name>.<kind>.<setting> and
// instances.<id>.<kind>.<setting>; see docs/configuration.md. Unknown keys
// and bad values make NewRegistry fail with a coded error.
func WithProperties(props map[string]string) Option {
	return optionFunc(func(r *Registry) error {
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := r.ext.add(k, props[k]); err != nil {
				return err
			}
		}
		return nil
	})
}

// WithPropertiesFile adds the flat keys of a Java-style .properties file
// (UTF-8). A file that cannot be read or parsed makes NewRegistry fail with
// R4C-REG-003.
func WithPropertiesFile(path string) Option {
	return optionFunc(func(r *Registry) error {
		f, err := os.Open(path)
		if err != nil {
			return &ConfigError{Code: CodeSource, Key: path, Rule: "cannot read the properties file: " + err.Error(), Err: err}
		}
		defer f.Close()
		entries, err := config.ParsePropertiesEntries(f)
		if err != nil {
			return &ConfigError{Code: CodeSource, Key: path, Rule: "cannot parse the properties file: " + err.Error(), Err: err}
		}
		for _, e := range entries {
			if err := r.ext.add(e.Key, e.Value); err != nil {
				return err
			}
		}
		return nil
	})
}

// WithEnvironment adds the flat keys found in the process environment: a
// variable R4C_DEFAULTS_ADAPTIVELIMIT_MAXLIMIT=100 sets
// defaults.adaptiveLimit.maxLimit. Kinds and settings match case-insensitively;
// a configuration name or instance id is written upper case with every
// character other than a letter or digit as "_" (instance "order-api" is
// R4C_INSTANCES_ORDER_API_TIMEOUT_TIMEOUT).
func WithEnvironment() Option { return WithEnv(os.Environ()) }

// WithEnv is WithEnvironment over the given "NAME=value" list instead of the
// process environment, for tests.
func WithEnv(environ []string) Option {
	return optionFunc(func(r *Registry) error {
		for _, e := range config.SplitEnv(environ, EnvPrefix) {
			if err := r.ext.addEnv(EnvPrefix+e.Name, e.Name, e.Value); err != nil {
				return err
			}
		}
		return nil
	})
}

func (x *external) add(key, value string) error {
	segs := strings.Split(key, ".")
	bad := func(rule string) error {
		return &ConfigError{Code: CodeUnknownKey, Key: key, Value: value, Rule: rule}
	}
	if len(segs) < 3 {
		return bad("a key has the form defaults.<kind>.<setting>, configs.<name>.<kind>.<setting> or instances.<id>.<kind>.<setting>")
	}
	e := extEntry{key: key, value: value, rawKind: segs[len(segs)-2], rawSet: segs[len(segs)-1]}
	switch segs[0] {
	case scopeDefaults:
		if len(segs) != 3 {
			return bad("a defaults key has the form defaults.<kind>.<setting>")
		}
	case scopeConfigs, scopeInstances:
		if len(segs) < 4 {
			return bad("a " + segs[0] + " key has the form " + segs[0] + ".<name>.<kind>.<setting>")
		}
		e.name = strings.Join(segs[1:len(segs)-2], ".")
		if e.name == "" {
			return bad("the name is empty")
		}
	default:
		return bad("the key starts with " + segs[0] + ", not defaults, configs or instances" +
			suggestion(segs[0], []string{scopeDefaults, scopeConfigs, scopeInstances}))
	}
	e.scope = segs[0]
	x.list = append(x.list, e)
	return nil
}

func (x *external) addEnv(varName, name, value string) error {
	segs := strings.Split(name, "_")
	bad := func(rule string) error {
		return &ConfigError{Code: CodeUnknownKey, Key: varName, Value: value, Rule: rule}
	}
	if len(segs) < 3 {
		return bad("an r4c variable has the form R4C_DEFAULTS_<KIND>_<SETTING>, R4C_CONFIGS_<NAME>_<KIND>_<SETTING> or R4C_INSTANCES_<ID>_<KIND>_<SETTING>")
	}
	scope := strings.ToLower(segs[0])
	e := extEntry{key: varName, value: value, env: true, rawKind: segs[len(segs)-2], rawSet: segs[len(segs)-1]}
	switch scope {
	case scopeDefaults:
		if len(segs) != 3 {
			return bad("a defaults variable has the form R4C_DEFAULTS_<KIND>_<SETTING>")
		}
	case scopeConfigs, scopeInstances:
		if len(segs) < 4 {
			return bad("the variable has no name between its scope and its kind")
		}
		e.name = strings.Join(segs[1:len(segs)-2], "_")
	default:
		return bad("the variable's scope is " + segs[0] + ", not DEFAULTS, CONFIGS or INSTANCES")
	}
	e.scope = scope
	x.list = append(x.list, e)
	return nil
}

// check resolves every entry's kind and setting and parses its value.
func (x *external) check(r *Registry) error {
	var kinds []string
	for _, s := range r.stores {
		kinds = append(kinds, s.kindKey())
	}
	for i := range x.list {
		e := &x.list[i]
		s := r.storeFor(e.rawKind)
		if s == nil && e.env {
			for _, c := range r.stores {
				if strings.EqualFold(c.kindKey(), e.rawKind) {
					s = c
				}
				for _, a := range c.kindAliases() {
					if strings.EqualFold(a, e.rawKind) {
						s = c
					}
				}
			}
		}
		if s == nil {
			return &ConfigError{Code: CodeUnknownKey, Key: e.key, Value: e.value,
				Rule: "no policy kind is called " + e.rawKind + suggestion(e.rawKind, kinds)}
		}
		e.kind = s.kindKey()
		for _, k := range s.fieldKeys() {
			if k == e.rawSet || (e.env && strings.EqualFold(k, e.rawSet)) {
				e.setting = k
			}
		}
		if e.setting == "" {
			return &ConfigError{Code: CodeUnknownKey, Key: e.key, Value: e.value,
				Rule: e.kind + " has no setting " + e.rawSet + suggestion(e.rawSet, s.fieldKeys())}
		}
		if err := s.checkValue(e.key, e.setting, e.value); err != nil {
			return err
		}
	}
	return nil
}

func normName(s string) string {
	b := []byte(strings.ToUpper(s))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

func (e *extEntry) matches(scope, name, kind string) bool {
	if e.scope != scope || e.kind != kind {
		return false
	}
	if scope == scopeDefaults {
		return true
	}
	if e.env {
		return e.name == normName(name)
	}
	return e.name == name
}

// entries returns the entries of a scope for a name and kind, in the order given.
func (x *external) entries(scope, name, kind string) []extEntry {
	var out []extEntry
	for _, e := range x.list {
		if e.matches(scope, name, kind) {
			out = append(out, e)
		}
	}
	return out
}

func (x *external) get(scope, name, kind, setting string) (string, bool) {
	v, ok := "", false
	for _, e := range x.list {
		if e.setting == setting && e.matches(scope, name, kind) {
			v, ok = e.value, true
		}
	}
	return v, ok
}

func (x *external) hasConfig(name, kind string) bool {
	for _, e := range x.list {
		if e.matches(scopeConfigs, name, kind) {
			return true
		}
	}
	return false
}

func (x *external) configNames(kind string) []string {
	var names []string
	for _, e := range x.list {
		if e.scope == scopeConfigs && e.kind == kind && !e.env {
			names = append(names, e.name)
		}
	}
	return names
}

func suggest(word string, candidates []string) string { return config.Suggest(word, candidates) }
