package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

// run is the command: it parses args, generates, writes the files and
// returns the exit code (0, 1 for errors in the input, 2 for usage).
func run(args []string, stderr io.Writer) int {
	opts, ok := parseOptions(args, stderr)
	if !ok {
		return 2
	}
	files, errs := generateAll(opts)
	if len(errs) > 0 {
		cwd, _ := os.Getwd()
		for _, d := range errs {
			fmt.Fprintln(stderr, d.format(cwd))
		}
		return 1
	}
	for _, path := range sortedKeys(files) {
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, files[path]) {
			continue // unchanged: keep its time stamp
		}
		if err := os.WriteFile(path, files[path], 0o644); err != nil {
			fmt.Fprintf(stderr, "%s: cannot write %s: %v\n", codeUsage, path, err)
			return 1
		}
	}
	return 0
}

// parseOptions parses the command line; it reports a usage error on
// stderr and returns false.
func parseOptions(args []string, stderr io.Writer) (options, bool) {
	fs := flag.NewFlagSet("r4cgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	typeNames := fs.String("type", "", "the interfaces to implement, comma-separated (required)")
	output := fs.String("output", "", "the file to write, for a single -type (default <type>_r4c.go, lower case, in the package's directory)")
	tags := fs.String("tags", "", "build tags to load the package with, comma-separated")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: r4cgen -type Name[,Name...] [-output file] [-tags tags] [directory]\n\n"+
			"r4cgen writes a resilient implementation of each interface named, from the\n"+
			"//r4c: directives in its comments: see docs/generate.md.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return options{}, false
	}
	dir := "."
	switch fs.NArg() {
	case 0:
	case 1:
		dir = fs.Arg(0)
	default:
		fmt.Fprintf(stderr, "%s: r4cgen takes one package directory, not %d arguments\n", codeUsage, fs.NArg())
		return options{}, false
	}
	var names []string
	for n := range strings.SplitSeq(*typeNames, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		fmt.Fprintf(stderr, "%s: -type is required: the interface(s) to implement\n", codeUsage)
		fs.Usage()
		return options{}, false
	}
	return options{dir: dir, types: names, output: *output, tags: *tags}, true
}

// generateAll generates the files for opts: their paths and contents, or
// the errors that stop it (sorted by position). Nothing is written.
func generateAll(opts options) (map[string][]byte, []diag) {
	ds := &diags{}
	if opts.output != "" && len(opts.types) > 1 {
		ds.errorf(token.Position{}, codeUsage, "-output names one file, for one -type; %d types were given", len(opts.types))
		return nil, ds.sorted()
	}
	l := load(opts, ds)
	if l == nil {
		return nil, ds.sorted()
	}
	pkg := l.pkg.Types
	var its []*iface
	for _, name := range opts.types {
		it := l.findInterface(name, ds)
		if it == nil {
			continue
		}
		for _, m := range it.methods {
			if m.sig == nil {
				continue
			}
			if !m.classify(it, pkg, ds, l) {
				m.sig = nil
				continue
			}
			m.id = pkg.Name() + "." + it.name + "." + m.name
			m.merge()
		}
		its = append(its, it)
	}
	check(its, ds)
	checkNames(its, pkg, l, ds)
	if len(ds.list) > 0 {
		return nil, ds.sorted()
	}
	en := l.enums(opts)
	out := map[string][]byte{}
	for _, it := range its {
		name := opts.output
		if name == "" {
			name = outputName(it.name)
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(opts.dir, name)
		}
		out[name] = generate(pkg, it, en, ds)
	}
	if len(ds.list) > 0 {
		return nil, ds.sorted()
	}
	return out, nil
}

// checkNames reports a name the generated code would declare that the
// package (or another interface of the same run) declares already.
func checkNames(its []*iface, pkg *types.Package, l *loaded, ds *diags) {
	mine := map[string]string{}
	for _, it := range its {
		for _, name := range sortedKeys(declared(it)) {
			what := declared(it)[name]
			if obj := pkg.Scope().Lookup(name); obj != nil {
				ds.errorf(l.fset.Position(obj.Pos()), codeName, "%s is declared here, and r4cgen declares it as %s for %s: rename one", name, what, it.name)
			}
			if other, ok := mine[name]; ok {
				ds.errorf(it.pos, codeName, "r4cgen would declare %s twice: as %s and as %s for %s", name, other, what, it.name)
			}
			mine[name] = what + " for " + it.name
		}
	}
}

// enums returns the lookup of the policy packages' enumeration constants,
// loading a package's types when first asked.
func (l *loaded) enums(opts options) enums {
	cache := map[string]*types.Package{}
	for _, p := range l.pkg.Types.Imports() {
		cache[p.Path()] = p
	}
	return func(pkgPath, typeName string, v int64) (string, bool) {
		p, ok := cache[pkgPath]
		if !ok {
			cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: opts.dir}
			if opts.tags != "" {
				cfg.BuildFlags = []string{"-tags=" + opts.tags}
			}
			if pkgs, err := packages.Load(cfg, pkgPath); err == nil && len(pkgs) == 1 {
				p = pkgs[0].Types
			}
			cache[pkgPath] = p
		}
		if p == nil {
			return "", false
		}
		return constName(p, typeName, v)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
