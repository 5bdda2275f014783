package main

import (
	"fmt"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
)

// The codes of the generator's own errors. A directive's value that breaks
// a rule of its key gets the registry's code instead (R4C-ATR-…, R4C-REG-…),
// the one a builder closure setting the same value would get.
const (
	// codeUsage: the command line is wrong, or the package cannot be loaded.
	codeUsage = "R4C-GEN-001"
	// codeType: the -type is not found, or is not an interface r4cgen can
	// implement.
	codeType = "R4C-GEN-002"
	// codeMethod: a method r4cgen cannot wrap: its results cannot carry an
	// error, or it cannot be implemented outside its package.
	codeMethod = "R4C-GEN-003"
	// codeName: a name the generated code declares is taken in the package.
	codeName = "R4C-GEN-004"
	// codeDirective: a directive that is malformed: a bare value where the
	// kind takes none, a key given twice, an empty name.
	codeDirective = "R4C-GEN-005"
)

// diag is one error the generator reports: where, its code, the key and
// value as written when there is one, and the rule broken.
type diag struct {
	pos   token.Position
	code  string
	key   string
	value string
	rule  string
}

// format returns "file:line: CODE key=value: rule", with the file relative
// to dir when it is inside it.
func (d diag) format(dir string) string {
	var b strings.Builder
	if d.pos.IsValid() {
		file := d.pos.Filename
		if rel, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = rel
		}
		fmt.Fprintf(&b, "%s:%d: ", file, d.pos.Line)
	}
	b.WriteString(d.code)
	if d.key != "" {
		b.WriteString(" ")
		b.WriteString(d.key)
		b.WriteString("=")
		b.WriteString(quoteIfNeeded(d.value))
	}
	b.WriteString(": ")
	b.WriteString(d.rule)
	return b.String()
}

// quoteIfNeeded quotes v the way r4c.ConfigError does.
func quoteIfNeeded(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\n\"") {
		return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"`
	}
	return v
}

// diags collects errors, once each.
type diags struct {
	list []diag
	seen map[string]bool
}

func (ds *diags) add(d diag) {
	k := d.format("")
	if ds.seen == nil {
		ds.seen = map[string]bool{}
	}
	if ds.seen[k] {
		return
	}
	ds.seen[k] = true
	ds.list = append(ds.list, d)
}

func (ds *diags) errorf(pos token.Position, code, format string, args ...any) {
	ds.add(diag{pos: pos, code: code, rule: fmt.Sprintf(format, args...)})
}

// sorted returns the errors by file and line, then in the order found.
func (ds *diags) sorted() []diag {
	out := append([]diag(nil), ds.list...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].pos, out[j].pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Line < b.Line
	})
	return out
}
