package r4c

import (
	"strings"
)

// referenceDoc renders the configuration reference (docs/configuration.md)
// from the kinds' field tables, so the reference cannot miss a key: a test
// compares the file with it.
func referenceDoc() string {
	r := &Registry{}
	r.initStores()
	var b strings.Builder
	b.WriteString(referenceIntro)
	for _, s := range r.stores {
		s.(interface{ writeReference(*strings.Builder) }).writeReference(&b)
	}
	return b.String()
}

func (s *store[C, I]) writeReference(b *strings.Builder) {
	b.WriteString("\n## " + s.k.key + "\n\n")
	if len(s.k.aliases) > 0 {
		b.WriteString("Also accepted as the kind segment: " + "`" + strings.Join(s.k.aliases, "`, `") + "`.\n\n")
	}
	b.WriteString("| key | type | default | valid | meaning |\n|---|---|---|---|---|\n")
	b.WriteString("| `baseConfig` | name | none | a named configuration | the named configuration this instance starts from (instances scope only) |\n")
	for _, f := range s.k.fields {
		b.WriteString("| `" + f.key + "` | " + f.typ + " | " + f.def + " | " + f.valid + " | " + f.doc + " |\n")
	}
}

const referenceIntro = `# Configuration reference

<!-- Generated from the registry's key tables by TestConfigurationReference;
     run "go test -run TestConfigurationReference -update ." after changing a key. -->

Every setting of every policy kind, as a flat key. The same settings exist
as fields of each package's Config, for code.

## Keys

- ` + "`defaults.<kind>.<key>`" + `: what every instance of the kind starts from.
- ` + "`configs.<name>.<kind>.<key>`" + `: a named configuration, used by an
  instance whose Config.BaseConfig (or ` + "`instances.<id>.<kind>.baseConfig`" + `) names it.
- ` + "`instances.<id>.<kind>.<key>`" + `: one instance, by id (the pipeline's
  name, or the Config.Name the builder gave it).

Configuration names and instance ids may contain dots: the last two segments
are always the kind and the key.

## Sources

- ` + "`r4c.WithProperties(map)`" + `, ` + "`r4c.WithPropertiesFile(path)`" + ` (Java
  .properties syntax, UTF-8) and ` + "`r4c.WithEnvironment()`" + ` (variables
  ` + "`R4C_<SCOPE>_<NAME>_<KIND>_<KEY>`" + `, upper case; in names every character
  other than a letter or digit becomes ` + "`_`" + `; kinds and keys match
  case-insensitively). For the same key a later option wins.

## Precedence

Lowest first: built-in default, defaults, named configuration, the
builder's values, external instance values. At the defaults and named
levels an external value wins over code. In code, a zero field means "not
set here"; an external value sets exactly what it says, zero included.

## Values

- Durations: Go syntax (` + "`500ms`, `2s`, `1m30s`" + `) or ISO-8601 (` + "`PT0.5S`, `PT2S`, `P1DT2H`" + `).
- Booleans: ` + "`true`" + ` or ` + "`false`" + `.
- Choices match case-insensitively.

Every rule broken is a coded error: see [errors.md](errors.md).
`
