package config

import (
	"sort"
	"strings"
)

// EnvEntry is one environment variable selected by SplitEnv.
type EnvEntry struct {
	// Name is the variable's name with the prefix removed.
	Name string
	// Value is the variable's value, as given.
	Value string
}

// SplitEnv selects from environ, a list of "NAME=value" strings such as
// os.Environ returns, the variables whose name starts with prefix (compared
// case-sensitively), and returns them sorted by name with the prefix
// removed.
//
// The name ends at the first "=" after its first character (so Windows'
// "=C:=C:\dir" entries keep their name). Entries without "=" and names
// equal to prefix are skipped. When a name appears more than once, the
// first value is kept, as os.Getenv does. The result is nil when nothing
// matches.
func SplitEnv(environ []string, prefix string) []EnvEntry {
	var out []EnvEntry
	seen := make(map[string]struct{})
	for _, kv := range environ {
		if len(kv) == 0 {
			continue
		}
		eq := strings.IndexByte(kv[1:], '=')
		if eq < 0 {
			continue
		}
		name, value := kv[:eq+1], kv[eq+2:]
		if len(name) <= len(prefix) || !strings.HasPrefix(name, prefix) {
			continue
		}
		if _, dup := seen[name]; dup {
			continue
		}
		seen[name] = struct{}{}
		out = append(out, EnvEntry{Name: name[len(prefix):], Value: value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
