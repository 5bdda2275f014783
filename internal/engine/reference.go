package engine

import "strings"

// reference writes the kind's section of the configuration reference: one
// row per key of its table, after baseConfig.
func (s *store[C, I]) reference(b *strings.Builder) {
	b.WriteString("\n## " + s.k.Name + "\n\n")
	if len(s.k.Aliases) > 0 {
		b.WriteString("Also accepted as the kind segment: `" + strings.Join(s.k.Aliases, "`, `") + "`.\n\n")
	}
	b.WriteString("| key | type | default | valid | meaning |\n|---|---|---|---|---|\n")
	b.WriteString("| `baseConfig` | name | none | a named configuration | the named configuration this instance starts from (instances scope only) |\n")
	for _, k := range s.k.Keys.Keys() {
		b.WriteString("| `" + k.Name + "` | " + cell(k.Type) + " | " + cell(k.Default) + " | " + cell(k.Valid) + " | " + cell(k.Doc) + " |\n")
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
