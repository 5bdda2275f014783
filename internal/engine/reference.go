package engine

import "strings"

// reference writes the kind's section of the configuration reference: one
// row per key of its table, after baseConfig, with whether Reload and the
// handle's setters can change it while the instance runs, and from when.
func (s *store[C, I]) reference(b *strings.Builder) {
	b.WriteString("\n## " + s.k.Name + "\n\n")
	if len(s.k.Aliases) > 0 {
		b.WriteString("Also accepted as the kind segment: `" + strings.Join(s.k.Aliases, "`, `") + "`.\n\n")
	}
	b.WriteString("| key | type | default | valid | live | meaning |\n|---|---|---|---|---|---|\n")
	b.WriteString("| `baseConfig` | name | none | a named configuration | no | the named configuration this instance starts from (instances scope only) |\n")
	for _, k := range s.k.Keys.Keys() {
		live := "no"
		if k.Live {
			live = "yes, from " + k.LiveDoc
		}
		b.WriteString("| `" + k.Name + "` | " + cell(k.Type) + " | " + cell(k.Default) + " | " + cell(k.Valid) + " | " + cell(live) + " | " + cell(k.Doc) + " |\n")
	}
	if code := s.k.Keys.Code(); len(code) > 0 {
		names := make([]string, len(code))
		for i, f := range code {
			names[i] = "`" + f.Name + "`"
		}
		b.WriteString("\nSet in code only: " + strings.Join(names, ", ") + ".\n")
	}
}

// cell escapes a table cell's "|".
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
