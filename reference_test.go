package r4c

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/resilience4cata/r4c/internal/engine"
	"github.com/resilience4cata/r4c/internal/kinds"
)

var update = flag.Bool("update", false, "rewrite the generated part of docs/configuration.md")

const (
	beginKeys = "<!-- BEGIN KEYS: generated from the policies' key tables by TestConfigurationReference -->\n"
	endKeys   = "<!-- END KEYS -->\n"
)

// TestConfigurationReference fails when docs/configuration.md's tables of
// keys differ from the policies' key tables (policy/<kind>/keys.go): a key
// in code and not in the reference, or the other way round, or a default,
// range or meaning that changed.
func TestConfigurationReference(t *testing.T) {
	const path = "docs/configuration.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok := strings.Cut(string(doc), beginKeys)
	if !ok {
		t.Fatalf("%s has no line %q", path, beginKeys)
	}
	got, tail, ok := strings.Cut(rest, endKeys)
	if !ok {
		t.Fatalf("%s has no line %q", path, endKeys)
	}
	want := engine.New(kinds.All()...).Reference() + "\n"
	if *update {
		if err := os.WriteFile(path, []byte(head+beginKeys+want+endKeys+tail), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != want {
		t.Fatalf("%s is out of date with the key tables; run: go test -run TestConfigurationReference -update .", path)
	}
}

// TestEveryCodeIsDocumented fails when a code constant is missing from
// docs/errors.md, or the engine has a code without a constant.
func TestEveryCodeIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for c := engine.Code(1); c < engine.NumCodes; c++ {
		text := codes[c]
		if text == "" {
			t.Errorf("engine code %d has no R4C code", c)
			continue
		}
		if seen[text] {
			t.Errorf("two engine codes map to %s", text)
		}
		seen[text] = true
		if !strings.Contains(string(doc), "| "+text+" |") {
			t.Errorf("docs/errors.md has no row for %s", text)
		}
	}
	// Every constant of errors.go, whether the engine uses it or not.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok {
					continue
				}
				text, _ := strconv.Unquote(lit.Value)
				n++
				if !strings.Contains(string(doc), "| "+text+" |") {
					t.Errorf("docs/errors.md has no row for %s", text)
				}
				if !seen[text] {
					t.Errorf("%s is no engine code", text)
				}
			}
		}
	}
	if n != len(seen) {
		t.Errorf("errors.go declares %d codes, the engine maps %d", n, len(seen))
	}
	if EnvPrefix != engine.EnvPrefix {
		t.Errorf("EnvPrefix %q, engine reads %q", EnvPrefix, engine.EnvPrefix)
	}
}
