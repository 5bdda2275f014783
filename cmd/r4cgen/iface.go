package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strconv"
	"strings"
)

const (
	futurePath = "github.com/resilience4cata/r4c/future"
)

// iface is an interface to implement, with its methods in source order
// (an embedded interface's methods where it is embedded).
type iface struct {
	name    string
	obj     *types.TypeName
	named   *types.Named
	pos     token.Position
	methods []*method
}

// shape is how a method is called through its pipeline.
type shape uint8

const (
	shapeSync   shape = iota // results then error: Execute or ExecuteContext
	shapeFuture              // *future.Future[T]: ExecuteFuture
)

// method is one method of an interface: its signature, its directives
// from the most general level to its own, and what the generator made of
// them.
type method struct {
	name   string
	sig    *types.Signature
	pos    token.Position
	levels []*level
	own    bool // it has directives of its own (on its declaration)

	shape   shape
	ctx     bool         // its first parameter is a context.Context
	results []types.Type // sync: the results before the error
	elem    types.Type   // future: the T of *future.Future[T]

	specs []*kindSpec // merged directives, in the pipeline's order
	id    string      // the pipeline's name, <package>.<Type>.<Method>
	names []string    // the wrapper's names of the parameters after the ctx
}

// findInterface looks up the interface called name in the package and
// walks its methods and directives.
func (l *loaded) findInterface(name string, ds *diags) *iface {
	pkg := l.pkg.Types
	obj, _ := pkg.Scope().Lookup(name).(*types.TypeName)
	if obj == nil {
		ds.errorf(token.Position{}, codeType, "package %s has no type %s%s", pkg.Name(), name, didYouMean(name, typeNames(pkg)))
		return nil
	}
	pos := l.fset.Position(obj.Pos())
	if obj.IsAlias() {
		ds.errorf(pos, codeType, "%s is an alias; give -type the interface it stands for, declared in this package", name)
		return nil
	}
	named, _ := obj.Type().(*types.Named)
	under, _ := obj.Type().Underlying().(*types.Interface)
	if named == nil || under == nil {
		ds.errorf(pos, codeType, "%s is not an interface", name)
		return nil
	}
	if !under.IsMethodSet() {
		ds.errorf(pos, codeType, "%s is a constraint (it has a type set), not an interface a value can have", name)
		return nil
	}
	it := &iface{name: name, obj: obj, named: named, pos: pos}
	spec, docs, fset := l.typeSpec(obj)
	if spec == nil {
		ds.errorf(pos, codeType, "cannot find the declaration of %s", name)
		return nil
	}
	top := parseLevel(fset, ds, docs...)
	seen := map[string]*method{}
	l.walk(it, spec.Type.(*ast.InterfaceType), fset, under, []*level{top}, seen, ds)
	// Every method of the method set, in case one was not reached through
	// the syntax (an embedded interface whose source cannot be read).
	for i := range under.NumMethods() {
		m := under.Method(i)
		if seen[m.Name()] == nil {
			mm := &method{name: m.Name(), pos: l.fset.Position(m.Pos()), levels: []*level{top}}
			seen[m.Name()] = mm
			it.methods = append(it.methods, mm)
		}
	}
	set := map[string]*types.Func{}
	for i := range under.NumMethods() {
		set[under.Method(i).Name()] = under.Method(i)
	}
	for _, m := range it.methods {
		fn := set[m.name]
		if fn == nil {
			ds.errorf(m.pos, codeMethod, "cannot find the method %s of %s", m.name, name)
			continue
		}
		if !fn.Exported() && fn.Pkg() != pkg {
			ds.errorf(m.pos, codeMethod, "%s.%s is unexported in package %s: no type outside it can implement %s",
				name, m.name, fn.Pkg().Path(), name)
			continue
		}
		m.sig = fn.Type().(*types.Signature)
	}
	return it
}

// walk adds the methods of the interface literal node, whose type is t,
// with the levels above them; embedded interfaces are walked where they
// are embedded.
func (l *loaded) walk(it *iface, node *ast.InterfaceType, fset *token.FileSet, t *types.Interface, levels []*level,
	seen map[string]*method, ds *diags) {
	embedded := 0
	for _, field := range node.Methods.List {
		lv := parseLevel(fset, ds, field.Doc, field.Comment)
		if len(field.Names) > 0 {
			name := field.Names[0].Name
			pos := fset.Position(field.Names[0].Pos())
			own := len(lv.kinds) > 0 || lv.config.set
			if prev := seen[name]; prev != nil {
				if own && prev.own {
					ds.errorf(pos, codeDirective, "%s is declared twice with directives (also at %s:%d); keep them on one", name, filepath.Base(prev.pos.Filename), prev.pos.Line)
				}
				continue
			}
			m := &method{name: name, pos: pos, levels: append(append([]*level(nil), levels...), lv), own: own}
			seen[name] = m
			it.methods = append(it.methods, m)
			continue
		}
		if embedded >= t.NumEmbeddeds() {
			continue
		}
		et := types.Unalias(t.EmbeddedType(embedded))
		embedded++
		switch et := et.(type) {
		case *types.Named:
			origin := et.Origin()
			under, _ := origin.Underlying().(*types.Interface)
			if under == nil {
				continue
			}
			spec, docs, efset := l.typeSpec(origin.Obj())
			if spec == nil {
				continue // its methods are added from the method set
			}
			inner, ok := spec.Type.(*ast.InterfaceType)
			if !ok {
				continue
			}
			sub := append(append([]*level(nil), levels...), parseLevel(efset, ds, docs...), lv)
			l.walk(it, inner, efset, under, sub, seen, ds)
		case *types.Interface:
			if inner, ok := field.Type.(*ast.InterfaceType); ok {
				l.walk(it, inner, fset, et, append(append([]*level(nil), levels...), lv), seen, ds)
			}
		}
	}
}

// typeNames returns the names of the types of pkg, for suggestions.
func typeNames(pkg *types.Package) []string {
	var names []string
	for _, n := range pkg.Scope().Names() {
		if _, ok := pkg.Scope().Lookup(n).(*types.TypeName); ok {
			names = append(names, n)
		}
	}
	return names
}

// classify decides m's shape, or reports why m cannot be wrapped.
func (m *method) classify(it *iface, pkg *types.Package, ds *diags, l *loaded) bool {
	sig := m.sig
	params, results := sig.Params(), sig.Results()
	m.ctx = params.Len() > 0 && isContext(params.At(0).Type())
	if invalid(sig) {
		ds.errorf(m.pos, codeUsage, "%s.%s: the package does not type-check: %s", it.name, m.name, packageErrors(l.pkg))
		return false
	}
	for v := range sig.Params().Variables() {
		if bad := unnameable(v.Type(), pkg); bad != "" {
			ds.errorf(m.pos, codeMethod, "%s.%s: its parameter type %s is unexported in another package", it.name, m.name, bad)
			return false
		}
	}
	for v := range sig.Results().Variables() {
		if bad := unnameable(v.Type(), pkg); bad != "" {
			ds.errorf(m.pos, codeMethod, "%s.%s: its result type %s is unexported in another package", it.name, m.name, bad)
			return false
		}
	}
	n := results.Len()
	if n == 1 {
		if elem := futureElem(results.At(0).Type()); elem != nil {
			m.shape, m.elem = shapeFuture, elem
			return true
		}
	}
	if n == 0 || !isError(results.At(n-1).Type()) {
		what := "returns no error"
		for i := range n {
			if isError(results.At(i).Type()) {
				what = "returns its error as result " + strconv.Itoa(i+1) + " of " + strconv.Itoa(n) + ", not last"
				break
			}
		}
		ds.errorf(m.pos, codeMethod, "%s.%s %s, so a wrapper could not report a rejection or a timeout: "+
			"make error its last result, or return a *future.Future[T], whose failure carries the error", it.name, m.name, what)
		return false
	}
	for i := range n - 1 {
		if futureElem(results.At(i).Type()) != nil {
			ds.errorf(m.pos, codeMethod, "%s.%s returns a *future.Future beside other results: a policy would hold its slot only "+
				"until the method returns, not until the future completes; return the *future.Future[T] alone and fail it with the error",
				it.name, m.name)
			return false
		}
		m.results = append(m.results, results.At(i).Type())
	}
	return true
}

func isContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

func isError(t types.Type) bool { return types.Identical(t, types.Universe.Lookup("error").Type()) }

// futureElem returns T when t is *future.Future[T], else nil.
func futureElem(t types.Type) types.Type {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return nil
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != futurePath || n.Obj().Name() != "Future" || n.TypeArgs().Len() != 1 {
		return nil
	}
	return n.TypeArgs().At(0)
}

// invalid reports whether t holds a type the type checker could not
// determine.
func invalid(t types.Type) bool {
	return strings.Contains(types.TypeString(t, nil), "invalid type")
}

// unnameable returns the first named type in t that code in pkg cannot
// name (unexported, in another package), or "".
func unnameable(t types.Type, pkg *types.Package) string {
	var bad string
	var visit func(t types.Type)
	seen := map[types.Type]bool{}
	visit = func(t types.Type) {
		if bad != "" || seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Alias:
			visit(types.Unalias(t))
		case *types.Named:
			if o := t.Obj(); o.Pkg() != nil && o.Pkg() != pkg && !o.Exported() {
				bad = o.Pkg().Path() + "." + o.Name()
				return
			}
			for a := range t.TypeArgs().Types() {
				visit(a)
			}
		case *types.Pointer:
			visit(t.Elem())
		case *types.Slice:
			visit(t.Elem())
		case *types.Array:
			visit(t.Elem())
		case *types.Map:
			visit(t.Key())
			visit(t.Elem())
		case *types.Chan:
			visit(t.Elem())
		case *types.Signature:
			for v := range t.Params().Variables() {
				visit(v.Type())
			}
			for v := range t.Results().Variables() {
				visit(v.Type())
			}
		case *types.Struct:
			for f := range t.Fields() {
				visit(f.Type())
			}
		case *types.Interface:
			for m := range t.Methods() {
				visit(m.Type())
			}
		}
	}
	visit(t)
	return bad
}

// lowerFirst returns s with its first letter in lower case.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// upperFirst returns s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
