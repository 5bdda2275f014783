package r4c_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEngineStaysInternal holds the root package to being the front of the
// engine (issue 11): what only package pipeline needs (the transaction Tx,
// Registry.Update, StageError) is reached through internal/seam, and no
// exported name of the package shows a type of internal/engine,
// internal/kinds or internal/seam.
func TestEngineStaysInternal(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		require.NoError(t, err)
		require.Equal(t, "r4c", f.Name.Name, p)
		files = append(files, f)
	}

	var exported []string         // top-level names and Type.Method
	var leaks []string            // exported declarations that mention an internal package
	internal := map[string]bool{} // the names the files give the internal packages
	for _, f := range files {
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if !strings.Contains(path, "/internal/") {
				continue
			}
			name := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			internal[name] = true
		}
	}
	mentionsInternal := func(n ast.Node) bool {
		found := false
		ast.Inspect(n, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] {
					found = true
				}
			}
			return !found
		})
		return found
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if star, ok := recv.(*ast.StarExpr); ok {
						recv = star.X
					}
					id, ok := recv.(*ast.Ident)
					if !ok || !id.IsExported() {
						continue
					}
					name = id.Name + "." + name
				}
				exported = append(exported, name)
				if mentionsInternal(d.Type) {
					leaks = append(leaks, name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						exported = append(exported, s.Name.Name)
						// Exported fields and methods of an exported type.
						ast.Inspect(s.Type, func(n ast.Node) bool {
							if fld, ok := n.(*ast.Field); ok {
								for _, nm := range fld.Names {
									if nm.IsExported() && mentionsInternal(fld.Type) {
										leaks = append(leaks, s.Name.Name+"."+nm.Name)
									}
								}
							}
							return true
						})
					case *ast.ValueSpec:
						for _, nm := range s.Names {
							if !nm.IsExported() {
								continue
							}
							exported = append(exported, nm.Name)
							if s.Type != nil && mentionsInternal(s.Type) {
								leaks = append(leaks, nm.Name)
							}
						}
					}
				}
			}
		}
	}
	require.Contains(t, exported, "Registry", "the walk finds the package's exported names")
	require.Contains(t, exported, "Registry.CheckUnusedKeys")
	for _, gone := range []string{"Tx", "StageError", "Registry.Update", "Update", "Kind", "Resolve"} {
		assert.False(t, slices.Contains(exported, gone), "%s is the engine's, reached through internal/seam; it must not be exported by package r4c", gone)
	}
	assert.Empty(t, leaks, "exported names whose types come from an internal package")
}
