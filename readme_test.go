package r4c_test

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeQuickStartIsTheExample keeps the README's quick start a copy of
// ExampleNewRegistry, which the tests run.
func TestReadmeQuickStartIsTheExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "## Quick start\n\n```go\n")
	if !ok {
		t.Fatal("README.md has no Go block under ## Quick start")
	}
	quick, _, _ := strings.Cut(after, "```")

	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "func ExampleNewRegistry() {\n")
	if !ok {
		t.Fatal("example_test.go has no ExampleNewRegistry")
	}
	body, _, _ = strings.Cut(body, "\n}\n")
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	if want := strings.Join(lines, "\n") + "\n"; quick != want {
		t.Errorf("the README's quick start differs from ExampleNewRegistry:\n--- README\n%s--- example\n%s", quick, want)
	}
}
