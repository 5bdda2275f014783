package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunWritesTheFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "every.go")
	var stderr bytes.Buffer
	if code := run([]string{"-type", "Every", "-output", out, "testdata/ok/kinds"}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/ok/kinds/every_r4c.go.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the file written differs from the golden file:\n%s", diffLines(string(want), string(got)))
	}
	// A second run leaves the unchanged file alone.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(out, old, old); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"-type", "Every", "-output", out, "testdata/ok/kinds"}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if fi, err := os.Stat(out); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("the unchanged file was rewritten (%v, %v)", fi.ModTime(), err)
	}
}

func TestRunReportsErrors(t *testing.T) {
	var stderr bytes.Buffer
	if code := run([]string{"-type", "Client", "testdata/errors/values"}, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "values.go:7: R4C-ATR-001 window=1sec: ") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if _, err := os.Stat("testdata/errors/values/client_r4c.go"); err == nil {
		t.Error("a file was written despite the errors")
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-type", " , "},
		{"-type", "A", "one", "two"},
		{"-nope"},
	} {
		var stderr bytes.Buffer
		if code := run(args, &stderr); code != 2 {
			t.Errorf("run(%q) exit %d, want 2", args, code)
		}
		if stderr.Len() == 0 {
			t.Errorf("run(%q) said nothing", args)
		}
	}
	var stderr bytes.Buffer
	if code := run([]string{"-type", "A", t.TempDir()}, &stderr); code != 1 || !strings.Contains(stderr.String(), codeUsage) {
		t.Errorf("an empty directory: exit %d, %s", code, stderr.String())
	}
}
