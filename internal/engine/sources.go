package engine

import (
	"bytes"
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

// source is one external source as given to NewRegistry: reading it
// appends its entries to ext. Reload reads every source again.
type source struct {
	read func(ext *[]*entry) error
	// file is the path of a properties file, for the watcher; "" otherwise.
	file string
}

// addSource records src and reads it once.
func (r *Registry) addSource(src source) error {
	r.sources = append(r.sources, src)
	return src.read(&r.ext)
}

// AddProperties adds flat keys from a map, in the order of their keys. A
// key of the wrong shape is an UnknownKey error. Reload reads the same map
// again.
func (r *Registry) AddProperties(props map[string]string) error {
	return r.addSource(source{read: func(ext *[]*entry) error { return readMap(ext, props) }})
}

func readMap(ext *[]*entry, props map[string]string) error {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := addKey(ext, k, props[k]); err != nil {
			return err
		}
	}
	return nil
}

// AddPropertiesFile adds the flat keys of a .properties file, in file
// order. A file that cannot be read or parsed is a Source error. Reload
// reads the file again.
func (r *Registry) AddPropertiesFile(path string) error {
	return r.addSource(source{file: path, read: func(ext *[]*entry) error { return readFile(ext, path) }})
}

func readFile(ext *[]*entry, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return &Error{Code: Source, Key: path, Rule: "cannot read the properties file: " + err.Error(), Err: err}
	}
	entries, err := config.ParsePropertiesEntries(bytes.NewReader(data))
	if err != nil {
		return &Error{Code: Source, Key: path, Rule: "cannot parse the properties file: " + err.Error(), Err: err}
	}
	for _, e := range entries {
		if err := addKey(ext, e.Key, e.Value); err != nil {
			return err
		}
	}
	return nil
}

// AddEnv adds the variables of environ ("NAME=value") whose name starts
// with EnvPrefix. Reload reads the same list again.
func (r *Registry) AddEnv(environ []string) error {
	return r.AddEnvFunc(func() []string { return environ })
}

// AddEnvFunc is AddEnv over the list environ returns, called again by each
// Reload (os.Environ, for the process environment).
func (r *Registry) AddEnvFunc(environ func() []string) error {
	return r.addSource(source{read: func(ext *[]*entry) error {
		for _, e := range config.SplitEnv(environ(), EnvPrefix) {
			if err := addVar(ext, EnvPrefix+e.Name, e.Name, e.Value); err != nil {
				return err
			}
		}
		return nil
	}})
}

func addKey(ext *[]*entry, key, value string) error {
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
	*ext = append(*ext, e)
	return nil
}

func addVar(ext *[]*entry, varName, name, value string) error {
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
	*ext = append(*ext, e)
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
