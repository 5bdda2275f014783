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

// TestPackageDocQuickStart keeps the quick start of the package
// documentation (doc.go) a copy of Example_production, which the tests run,
// but for the path of the properties file.
func TestPackageDocQuickStart(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "on any configuration error:\n//\n")
	if !ok {
		t.Fatal("doc.go has no quick start")
	}
	block, _, _ := strings.Cut(after, "\n//\n// The properties file")
	var got []string
	for _, l := range strings.Split(block, "\n") {
		got = append(got, strings.TrimPrefix(strings.TrimPrefix(l, "//"), "\t"))
	}

	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "func Example_production() {\n")
	if !ok {
		t.Fatal("example_test.go has no Example_production")
	}
	body, _, _ = strings.Cut(body, "\n\t// Output:")
	body = strings.ReplaceAll(body, `"testdata/r4c.properties"`, `"/etc/orders/r4c.properties"`)
	var want []string
	for _, l := range strings.Split(body, "\n") {
		want = append(want, strings.TrimPrefix(l, "\t"))
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("doc.go's quick start differs from Example_production:\n--- doc.go\n%s\n--- example\n%s", g, w)
	}
	// A production quick start: the real clock, the real sources, no test
	// settings; and the check of unused instance keys once the pipelines
	// are built.
	for _, testOnly := range []string{"ManualClock", "clocktest", "WithClock", "WithEnv(", "WithProperties(", "MinWindowSamples"} {
		if strings.Contains(block, testOnly) {
			t.Errorf("doc.go's quick start uses %s, a test setting", testOnly)
		}
	}
	for _, need := range []string{"r4c.WithPropertiesFile(", "r4c.WithEnvironment()", "reg.CheckUnusedKeys()"} {
		if !strings.Contains(block, need) {
			t.Errorf("doc.go's quick start does not call %s", need)
		}
	}
}
