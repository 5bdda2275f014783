package engine

import (
	"os"
	"sort"
	"strings"

	"github.com/resilience4cata/r4c/internal/config"
)

// The scopes of a flat key.
const (
	scopeDefaults  = "defaults"
	scopeConfigs   = "configs"
	scopeInstances = "instances"
)

// baseConfigKey is the flat key, beside a kind's own keys, that names the
// configuration an instance starts from.
const baseConfigKey = "baseConfig"

// EnvPrefix starts the name of every environment variable the registry
// reads.
const EnvPrefix = "R4C_"

// entry is one flat key given from outside, as given. Entries are kept in
// the order given: a later entry for the same key wins.
type entry struct {
	key     string // as given: "configs.backend.adaptiveLimit.backoffRatio" or "R4C_..."
	value   string
	scope   string
	name    string // configuration name or instance id; for env entries, normalised
	env     bool   // name is normalised (upper case, non-alphanumerics as _)
	rawKind string
	rawKey  string

	// Set by Check.
	store storeAny // the kind's store
	index int      // the key's index in the kind's table; -1 for baseConfig
}

// AddProperties adds flat keys from a map, in the order of their keys. A
// key of the wrong shape is an UnknownKey error.
func (r *Registry) AddProperties(props map[string]string) error {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := r.addKey(k, props[k]); err != nil {
			return err
		}
	}
	return nil
}

// AddPropertiesFile adds the flat keys of a .properties file, in file
// order. A file that cannot be read or parsed is a Source error.
func (r *Registry) AddPropertiesFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return &Error{Code: Source, Key: path, Rule: "cannot read the properties file: " + err.Error(), Err: err}
	}
	defer f.Close()
	entries, err := config.ParsePropertiesEntries(f)
	if err != nil {
		return &Error{Code: Source, Key: path, Rule: "cannot parse the properties file: " + err.Error(), Err: err}
	}
	for _, e := range entries {
		if err := r.addKey(e.Key, e.Value); err != nil {
			return err
		}
	}
	return nil
}

// AddEnv adds the variables of environ ("NAME=value") whose name starts
// with EnvPrefix.
func (r *Registry) AddEnv(environ []string) error {
	for _, e := range config.SplitEnv(environ, EnvPrefix) {
		if err := r.addVar(EnvPrefix+e.Name, e.Name, e.Value); err != nil {
			return err
		}
	}
	return nil
}

func (r *Registry) addKey(key, value string) error {
	segs := strings.Split(key, ".")
	bad := func(rule string) error {
		return &Error{Code: UnknownKey, Key: key, Value: value, Rule: rule}
	}
	if len(segs) < 3 {
		return bad("a key has the form defaults.<kind>.<key>, configs.<name>.<kind>.<key> or instances.<id>.<kind>.<key>")
	}
	e := &entry{key: key, value: value, rawKind: segs[len(segs)-2], rawKey: segs[len(segs)-1]}
	switch segs[0] {
	case scopeDefaults:
		if len(segs) != 3 {
			return bad("a defaults key has the form defaults.<kind>.<key>")
		}
	case scopeConfigs, scopeInstances:
		if len(segs) < 4 {
			return bad("a " + segs[0] + " key has the form " + segs[0] + ".<name>.<kind>.<key>")
		}
		e.name = strings.Join(segs[1:len(segs)-2], ".")
		if e.name == "" {
			return bad("the name is empty: a " + segs[0] + " key has the form " + segs[0] + ".<name>.<kind>.<key>")
		}
	default:
		return bad("the key starts with " + segs[0] + ", not defaults, configs or instances" +
			suggestion(segs[0], []string{scopeDefaults, scopeConfigs, scopeInstances}))
	}
	switch {
	case e.rawKind == "":
		return bad("the kind is empty")
	case e.rawKey == "":
		return bad("the key is empty")
	}
	e.scope = segs[0]
	r.ext = append(r.ext, e)
	return nil
}

func (r *Registry) addVar(varName, name, value string) error {
	segs := strings.Split(name, "_")
	bad := func(rule string) error {
		return &Error{Code: UnknownKey, Key: varName, Value: value, Rule: rule}
	}
	if len(segs) < 3 {
		return bad("an r4c variable has the form R4C_DEFAULTS_<KIND>_<KEY>, R4C_CONFIGS_<NAME>_<KIND>_<KEY> or R4C_INSTANCES_<ID>_<KIND>_<KEY>")
	}
	scope := strings.ToLower(segs[0])
	e := &entry{key: varName, value: value, env: true, rawKind: segs[len(segs)-2], rawKey: segs[len(segs)-1]}
	switch scope {
	case scopeDefaults:
		if len(segs) != 3 {
			return bad("a defaults variable has the form R4C_DEFAULTS_<KIND>_<KEY>")
		}
	case scopeConfigs, scopeInstances:
		if len(segs) < 4 {
			return bad("the variable has no name between its scope and its kind")
		}
		e.name = strings.Join(segs[1:len(segs)-2], "_")
		if e.name == "" {
			return bad("the variable's name part is empty: it has the form R4C_" + segs[0] + "_<NAME>_<KIND>_<KEY>")
		}
	default:
		return bad("the variable's scope is " + segs[0] + ", not DEFAULTS, CONFIGS or INSTANCES")
	}
	switch {
	case e.rawKind == "":
		return bad("the variable's kind part is empty")
	case e.rawKey == "":
		return bad("the variable's key part is empty")
	}
	e.scope = scope
	r.ext = append(r.ext, e)
	return nil
}

// check resolves every entry's kind and key and parses its value into the
// kind's store: the only time the value's text is parsed.
func (r *Registry) checkEntries() error {
	var kinds []string
	for _, s := range r.stores {
		kinds = append(kinds, s.kindName())
	}
	for _, e := range r.ext {
		s := r.storeFor(e.rawKind, e.env)
		if s == nil {
			return &Error{Code: UnknownKey, Key: e.key, Value: e.value,
				Rule: "no policy kind is called " + e.rawKind + suggestion(e.rawKind, kinds)}
		}
		e.store = s
		if err := s.addEntry(e); err != nil {
			return err
		}
	}
	return nil
}

// storeFor returns the store whose kind or alias is name (compared
// case-insensitively for environment variables), or nil.
func (r *Registry) storeFor(name string, fold bool) storeAny {
	eq := func(a string) bool { return a == name || fold && strings.EqualFold(a, name) }
	for _, s := range r.stores {
		if eq(s.kindName()) || s.hasAlias(eq) {
			return s
		}
	}
	return nil
}

// normName is how an environment variable writes a name: upper case, with
// every character other than a letter or digit as "_".
func normName(s string) string {
	b := []byte(strings.ToUpper(s))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// names reports whether e is of scope and names name (a configuration name
// or instance id).
func (e *entry) names(scope, name string) bool {
	if e.scope != scope {
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
