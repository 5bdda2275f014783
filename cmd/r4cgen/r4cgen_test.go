package main

import (
	"bufio"
	"bytes"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/resilience4cata/r4c"
)

// generateLine is the prefix of the example's go:generate line.
const generateLine = "//go:generate go run github.com/resilience4cata/r4c/cmd/r4cgen "

// TestExampleIsUpToDate regenerates examples/generate with the arguments
// of its go:generate line and compares with the files checked in.
func TestExampleIsUpToDate(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "generate")
	src, err := os.ReadFile(filepath.Join(dir, "clients.go"))
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), generateLine); ok {
			args = strings.Fields(rest)
		}
	}
	if args == nil {
		t.Fatalf("clients.go has no line %q", generateLine)
	}
	opts, ok := parseOptions(append(args, dir), os.Stderr)
	if !ok {
		t.Fatalf("the go:generate line's arguments %v do not parse", args)
	}
	files, errs := generateAll(opts)
	if len(errs) > 0 {
		t.Fatal(formatAll(errs, dir))
	}
	if len(files) != 2 {
		t.Fatalf("wrote %v, want two files", sortedKeys(files))
	}
	for _, path := range sortedKeys(files) {
		disk, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v: run go generate ./examples/generate", err)
		}
		if !bytes.Equal(disk, files[path]) {
			t.Errorf("%s is not what r4cgen writes today (run go generate ./examples/generate):\n%s", path, diffLines(string(disk), string(files[path])))
		}
	}
}

// sample returns a value of key type typ that is not its zero.
func sample(typ string) string {
	switch typ {
	case "int":
		return "3"
	case "float":
		return "0.7"
	case "duration":
		return "1500ms"
	case "bool":
		return "true"
	}
	names := strings.Split(typ, "|")
	return names[len(names)-1] // the first name of an enumeration is its zero
}

// Every key of every table is held by an exported field that the
// generated code can assign, and its zero is written with SetZero or
// Enable.
func TestEveryKeyCanBeWritten(t *testing.T) {
	f := &file{imports: map[string]string{}, taken: map[string]bool{}, ds: &diags{},
		enums: func(string, string, int64) (string, bool) { return "X", true }}
	for _, k := range kinds {
		for i, name := range k.Keys() {
			typ := typeOf(t, k, i)
			text := sample(typ)
			if name == "enabled" {
				text = "false"
			}
			parsed, err := k.Parse(i, text)
			if err != nil {
				t.Fatalf("%s.%s=%s: %v", k.Name(), name, text, err)
			}
			field, v, zero := k.Field(i, parsed)
			if zero || field == "" {
				t.Errorf("%s.%s=%s: no field (zero %v)", k.Name(), name, text, zero)
				continue
			}
			if _, ok := f.literal(v); !ok {
				t.Errorf("%s.%s=%s: field %s of %s cannot be written", k.Name(), name, text, field, v.Type())
			}
		}
	}
}

// typeOf returns the Type of the key at i, through the public tables.
func typeOf(t *testing.T, k kind, i int) string {
	t.Helper()
	switch k := k.(type) {
	case interface{ keyType(int) string }:
		return k.keyType(i)
	}
	t.Fatalf("%s has no keyType", k.Name())
	return ""
}

func (k *kindOf[C]) keyType(i int) string { return k.table.At(i).Type }

func TestDurationLiterals(t *testing.T) {
	f := &file{imports: map[string]string{"time": "time"}, taken: map[string]bool{}}
	for d, want := range map[time.Duration]string{
		time.Second:                   "time.Second",
		2 * time.Second:               "2 * time.Second",
		1500 * time.Millisecond:       "1500 * time.Millisecond",
		90 * time.Second:              "90 * time.Second",
		2 * time.Hour:                 "2 * time.Hour",
		time.Minute + time.Nanosecond: "60000000001 * time.Nanosecond",
		3 * time.Microsecond:          "3 * time.Microsecond",
		24*time.Hour + 30*time.Minute: "1470 * time.Minute",
		time.Duration(1<<63 - 1):      "9223372036854775807 * time.Nanosecond",
	} {
		if got := f.duration(d); got != want {
			t.Errorf("duration(%v) = %s, want %s", d, got, want)
		}
	}
}

// The suggestions follow the registry's, for the same candidates.
func TestSuggestLikeTheRegistry(t *testing.T) {
	k := lookupKind("adaptiveLimit")
	cands := append([]string{"baseConfig"}, k.Keys()...)
	quoted := regexp.MustCompile(`did you mean "([^"]*)"`)
	for _, word := range []string{"maxLimt", "MAXLIMIT", "minlimit", "windw", "algoritm", "x", "xy", "latencyceiling",
		"smothing", "queuSize", "mxWait", "basConfig", "initalLimit", "zzzzzzzz", "lowPriority"} {
		_, err := r4c.NewRegistry(r4c.WithProperties(map[string]string{"defaults.adaptiveLimit." + word: "1"}))
		want := ""
		if m := quoted.FindStringSubmatch(err.Error()); m != nil {
			want = m[1]
		}
		if word == "basConfig" {
			continue // the registry refuses baseConfig in defaults before suggesting
		}
		if got := suggest(word, cands); got != want {
			t.Errorf("suggest(%q) = %q, the registry says %q (%v)", word, got, want, err)
		}
	}
}

// Every code of the generator is documented in docs/errors.md and
// docs/generate.md.
func TestEveryCodeIsDocumented(t *testing.T) {
	for _, doc := range []string{"errors.md", "generate.md"} {
		text, err := os.ReadFile(filepath.Join("..", "..", "docs", doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range []string{codeUsage, codeType, codeMethod, codeName, codeDirective} {
			if !strings.Contains(string(text), "| "+code+" |") {
				t.Errorf("docs/%s has no row for %s", doc, code)
			}
		}
	}
}

func TestDiagFormat(t *testing.T) {
	d := diag{pos: token.Position{Filename: "/a/b/c.go", Line: 7}, code: "R4C-ATR-001", key: "window", value: "1 sec", rule: "bad"}
	if got, want := d.format("/a"), `b/c.go:7: R4C-ATR-001 window="1 sec": bad`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := d.format("/x"), `/a/b/c.go:7: R4C-ATR-001 window="1 sec": bad`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	d = diag{code: codeUsage, rule: "r"}
	if got, want := d.format("/"), "R4C-GEN-001: r"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
