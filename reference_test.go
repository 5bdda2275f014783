package r4c

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md")

// TestConfigurationReference fails when a key exists in code and not in
// docs/configuration.md (or the other way round).
func TestConfigurationReference(t *testing.T) {
	want := referenceDoc()
	if *update {
		if err := os.WriteFile("docs/configuration.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("docs/configuration.md is out of date with the registry's keys; run: go test -run TestConfigurationReference -update .")
	}
}
