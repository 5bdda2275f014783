package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata from what the generator writes now")

// caseOptions reads the command line of a test case from its file args.
func caseOptions(t *testing.T, dir string) options {
	t.Helper()
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	opts, ok := parseOptions(append(strings.Fields(string(args)), dir), io.Discard)
	if !ok {
		t.Fatalf("%s/args: %s does not parse", dir, args)
	}
	return opts
}

func caseDirs(t *testing.T, pattern string) []string {
	t.Helper()
	dirs, err := filepath.Glob(pattern)
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no test cases in %s", pattern)
	}
	var out []string
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "args")); err == nil {
			out = append(out, d)
		}
	}
	return out
}

// checkGolden compares got with the golden file path, or rewrites it with
// -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the generator writes now (go test -update rewrites it):\n%s", path, diffLines(string(want), string(got)))
	}
}

// diffLines shows the first lines where want and got differ.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + itoa(i+1) + ":\n- " + a + "\n+ " + b
		}
	}
	return "(same lines)"
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestGolden generates every case of testdata/ok and compares each file
// with its golden copy (<file>.golden beside the input); a second run
// must write the same bytes. TestGoldenCompiles builds and vets them.
func TestGolden(t *testing.T) {
	for _, dir := range caseDirs(t, "testdata/ok/*") {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			opts := caseOptions(t, dir)
			files, errs := generateAll(opts)
			if len(errs) > 0 {
				t.Fatalf("errors: %s", formatAll(errs, dir))
			}
			again, _ := generateAll(opts)
			for _, path := range sortedKeys(files) {
				if !bytes.Equal(files[path], again[path]) {
					t.Errorf("%s: a second run writes other bytes", path)
				}
				checkGolden(t, path+".golden", files[path])
			}
		})
	}
}

// TestGoldenCompiles vets the golden files in their packages (go vet
// type-checks them first), through an overlay that puts each golden file
// where the generator writes it.
func TestGoldenCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	overlay := map[string]string{}
	var pkgs []string
	for _, dir := range caseDirs(t, "testdata/ok/*") {
		abs, _ := filepath.Abs(dir)
		goldens, _ := filepath.Glob(filepath.Join(abs, "*.golden"))
		for _, g := range goldens {
			overlay[strings.TrimSuffix(g, ".golden")] = g
		}
		pkgs = append(pkgs, "./"+dir)
	}
	slices.Sort(pkgs)
	data, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "overlay.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", append([]string{"vet", "-overlay=" + path}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go vet of the golden files: %v\n%s", err, out)
	}
}

func formatAll(ds []diag, dir string) string {
	abs, _ := filepath.Abs(dir)
	var lines []string
	for _, d := range ds {
		lines = append(lines, d.format(abs))
	}
	return strings.Join(lines, "\n")
}

// TestErrors runs every case of testdata/errors and compares the errors
// reported (file:line relative to the case) with its errors.golden.
func TestErrors(t *testing.T) {
	for _, dir := range caseDirs(t, "testdata/errors/*") {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			files, errs := generateAll(caseOptions(t, dir))
			if len(errs) == 0 {
				t.Fatalf("no error; wrote %v", sortedKeys(files))
			}
			checkGolden(t, filepath.Join(dir, "errors.golden"), []byte(formatAll(errs, dir)+"\n"))
		})
	}
}
