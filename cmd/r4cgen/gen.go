package main

import (
	"bytes"
	"fmt"
	"go/constant"
	"go/format"
	"go/token"
	"go/types"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Import paths the generated code uses.
const (
	r4cPath      = "github.com/resilience4cata/r4c"
	pipelinePath = "github.com/resilience4cata/r4c/pipeline"
)

// reservedLocals are the identifiers the generated functions declare; no
// import and no parameter may be called so.
var reservedLocals = []string{"a", "c", "ctx", "delegate", "err", "p", "r", "reg", "res"}

// enums finds the constant that names an enumeration value of a policy
// package, such as adaptivelimit.AIMD.
type enums func(pkgPath, typeName string, v int64) (string, bool)

// file writes the file of one interface.
type file struct {
	pkg       *types.Package
	it        *iface
	enums     enums
	ds        *diags
	imports   map[string]string // path → name
	usedPaths map[string]bool   // the imports the code uses
	taken     map[string]bool   // names no import or parameter may take
	b         bytes.Buffer

	typeParams string // "[K comparable, V any]", or ""
	typeArgs   string // "[K, V]", or ""
}

// names are the identifiers the file declares for one interface.
type names struct {
	wrapper, ctor string
}

func wrapperNames(it *iface) names {
	if token.IsExported(it.name) {
		return names{wrapper: it.name + "Resilient", ctor: "New" + it.name + "Resilient"}
	}
	return names{wrapper: it.name + "Resilient", ctor: "new" + upperFirst(it.name) + "Resilient"}
}

// argsName and resultName are the helper types of a method.
func argsName(it *iface, m *method) string { return lowerFirst(it.name) + upperFirst(m.name) + "Args" }
func resultName(it *iface, m *method) string {
	if token.IsExported(it.name) && token.IsExported(m.name) {
		return it.name + m.name + "Result"
	}
	return lowerFirst(it.name) + upperFirst(m.name) + "Result"
}

// declared returns every package-level name the file for it declares,
// with what it is.
func declared(it *iface) map[string]string {
	n := wrapperNames(it)
	out := map[string]string{n.wrapper: "the wrapper type", n.ctor: "the constructor"}
	for _, m := range it.methods {
		if m.sig == nil || len(m.specs) == 0 {
			continue
		}
		if m.usesArgs() {
			out[argsName(it, m)] = "the parameters of " + m.name
		}
		if m.shape == shapeSync && len(m.results) > 1 {
			out[resultName(it, m)] = "the results of " + m.name
		}
	}
	return out
}

// params are the parameters of m after the ctx, if any.
func (m *method) params() []*types.Var {
	var out []*types.Var
	for i := range m.sig.Params().Len() {
		if i == 0 && m.ctx {
			continue
		}
		out = append(out, m.sig.Params().At(i))
	}
	return out
}

// usesArgs reports whether m's parameters travel in an args struct.
func (m *method) usesArgs() bool { return len(m.params()) > 1 }

// bound reports whether m's calls go through a pipeline.Bound or
// BoundFuture.
func (m *method) bound() bool { return len(m.params()) > 0 }

func newFile(pkg *types.Package, it *iface, en enums, ds *diags) *file {
	f := &file{pkg: pkg, it: it, enums: en, ds: ds, imports: map[string]string{}, taken: map[string]bool{}}
	for _, n := range pkg.Scope().Names() {
		f.taken[n] = true
	}
	for _, n := range reservedLocals {
		f.taken[n] = true
	}
	if tps := it.named.TypeParams(); tps.Len() > 0 {
		for tp := range tps.TypeParams() {
			f.taken[tp.Obj().Name()] = true
		}
	}
	// The library's packages first, so that they keep their own names when
	// a package of the user's has the same.
	for _, p := range []string{"context", r4cPath, pipelinePath, futurePath, "time"} {
		f.name(p, path.Base(p))
	}
	for _, k := range kinds {
		f.name(k.PkgPath(), path.Base(k.PkgPath()))
	}
	if tps := it.named.TypeParams(); tps.Len() > 0 {
		var decl, use []string
		for tp := range tps.TypeParams() {
			decl = append(decl, tp.Obj().Name()+" "+f.typ(tp.Constraint()))
			use = append(use, tp.Obj().Name())
		}
		f.typeParams = "[" + strings.Join(decl, ", ") + "]"
		f.typeArgs = "[" + strings.Join(use, ", ") + "]"
	}
	return f
}

// name returns the name the file imports the package at p as, choosing
// one that nothing else in the file's scope has.
func (f *file) name(p, pkgName string) string {
	if n, ok := f.imports[p]; ok {
		return n
	}
	cands := []string{pkgName}
	if strings.HasPrefix(p, r4cPath+"/") {
		cands = append(cands, "r4c"+pkgName)
	}
	for i := 2; ; i++ {
		cands = append(cands, pkgName+strconv.Itoa(i))
		if i > 100 {
			break
		}
	}
	for _, c := range cands {
		if !f.taken[c] {
			f.taken[c] = true
			f.imports[p] = c
			return c
		}
	}
	panic("r4cgen: no import name for " + p) // unreachable: there are only so many names in a package
}

// use returns the name of the import at p and marks it used.
func (f *file) use(p string) string {
	f.name(p, path.Base(p))
	f.used(p)
	return f.imports[p]
}

func (f *file) used(p string) {
	if f.usedPaths == nil {
		f.usedPaths = map[string]bool{}
	}
	f.usedPaths[p] = true
}

// typ writes t as the file's code names it.
func (f *file) typ(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == f.pkg {
			return ""
		}
		f.name(p.Path(), p.Name())
		f.used(p.Path())
		return f.imports[p.Path()]
	})
}

func (f *file) p(format string, args ...any) { fmt.Fprintf(&f.b, format, args...) }

// doc writes text as a comment, its lines filled to 80 columns.
func (f *file) doc(indent, text string) {
	line := indent + "//"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 80 && line != indent+"//" {
			f.p("%s\n", line)
			line = indent + "//"
		}
		line += " " + w
	}
	f.p("%s\n", line)
}

// generate returns the formatted source of the file for it.
func generate(pkg *types.Package, it *iface, en enums, ds *diags) []byte {
	f := newFile(pkg, it, en, ds)
	body := f.body()
	var out bytes.Buffer
	fmt.Fprintf(&out, "%s\n\npackage %s\n\n", header, pkg.Name())
	var std, other []string
	for p := range f.usedPaths {
		if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
			other = append(other, p)
		} else {
			std = append(std, p)
		}
	}
	slices.Sort(std)
	slices.Sort(other)
	out.WriteString("import (\n")
	for i, group := range [][]string{std, other} {
		if i == 1 && len(std) > 0 && len(other) > 0 {
			out.WriteString("\n")
		}
		for _, p := range group {
			if n := f.imports[p]; n != path.Base(p) {
				fmt.Fprintf(&out, "\t%s %q\n", n, p)
			} else {
				fmt.Fprintf(&out, "\t%q\n", p)
			}
		}
	}
	out.WriteString(")\n\n")
	out.Write(body)
	src, err := format.Source(out.Bytes())
	if err != nil {
		ds.errorf(it.pos, codeUsage, "r4cgen wrote code that does not parse (a bug of r4cgen): %v", err)
		return out.Bytes()
	}
	return src
}

// body writes the declarations of the file.
func (f *file) body() []byte {
	it := f.it
	n := wrapperNames(it)
	pipelineName := f.use(pipelinePath)
	r4cName := f.use(r4cPath)

	// Parameter names, for each method.
	for _, m := range it.methods {
		m.names = f.paramNames(m)
	}

	// The wrapper type.
	f.doc("", fmt.Sprintf("%s implements %s: each method calls the delegate through a pipeline of the "+
		"policies its r4c directives declare, built once by %s. It is safe for concurrent use when the delegate is. "+
		"The methods, their policies (outermost first) and instance ids:", n.wrapper, it.name, n.ctor))
	f.p("//\n")
	for _, m := range it.methods {
		f.p("//   - %s: %s\n", m.name, m.summary())
	}
	f.p("type %s%s struct {\n", n.wrapper, f.typeParams)
	f.p("\tdelegate %s%s\n", it.name, f.typeArgs)
	for _, m := range it.methods {
		if len(m.specs) == 0 {
			continue
		}
		t := f.pipelineT(m)
		switch {
		case m.bound() && m.shape == shapeFuture:
			f.p("\tp%s *%s.BoundFuture[%s, %s]\n", m.name, pipelineName, t, f.argType(m))
		case m.bound():
			f.p("\tp%s *%s.Bound[%s, %s]\n", m.name, pipelineName, t, f.argType(m))
		default:
			f.p("\tp%s *%s.Pipeline[%s]\n", m.name, pipelineName, t)
			f.p("\tfn%s %s\n", m.name, f.fnType(m))
		}
	}
	f.p("}\n\n")
	if f.typeParams == "" {
		f.p("var _ %s = (*%s)(nil)\n\n", it.name, n.wrapper)
	}

	// Helper types.
	for _, m := range it.methods {
		if len(m.specs) == 0 {
			continue
		}
		if m.usesArgs() {
			f.doc("", fmt.Sprintf("%s carries the parameters of %s.%s through its pipeline.", argsName(it, m), it.name, m.name))
			f.p("type %s%s struct {\n", argsName(it, m), f.typeParams)
			for i, v := range m.params() {
				f.p("\t%s %s\n", m.names[i], f.paramType(m, i, v, false))
			}
			f.p("}\n\n")
		}
		if m.shape == shapeSync && len(m.results) > 1 {
			rn := resultName(it, m)
			f.doc("", fmt.Sprintf("%s carries the results of %s.%s through its pipeline: R0 is the first, "+
				"R1 the second, and so on. A fallback's value for %s is one.", rn, it.name, m.name, m.name))
			f.p("type %s%s struct {\n", rn, f.typeParams)
			for i, t := range m.results {
				f.p("\tR%d %s\n", i, f.typ(t))
			}
			f.p("}\n\n")
		}
	}

	// The constructor.
	f.doc("", fmt.Sprintf("%s returns a %s that calls delegate through the pipelines of its methods, "+
		"built in reg once, now. Each pipeline is named %s.%s.<Method>, the id of its policies unless a directive's "+
		"name= gives one; external keys (instances.<id>.<kind>.<key>) and handles use those ids. It returns a "+
		"*r4c.ConfigError (errors.Is(err, r4c.ErrConfig)) when delegate is nil or a pipeline does not build: a value "+
		"the registry's layers make invalid, or a shared name= that resolves to two configurations (R4C-REG-008). "+
		"The pipelines built before the one that failed stay registered in reg.", n.ctor, n.wrapper, f.pkg.Name(), it.name))
	f.p("func %s%s(delegate %s%s, reg *%s.Registry) (*%s%s, error) {\n", n.ctor, f.typeParams, it.name, f.typeArgs, r4cName, n.wrapper, f.typeArgs)
	f.p("\tif delegate == nil {\n")
	f.p("\t\treturn nil, &%s.ConfigError{Code: %s.CodeBuilder, Key: %q, Rule: %q}\n", r4cName, r4cName,
		f.pkg.Name()+"."+it.name, n.ctor+" needs a delegate, not nil")
	f.p("\t}\n")
	f.p("\tr := &%s%s{delegate: delegate}\n", n.wrapper, f.typeArgs)
	for _, m := range it.methods {
		if len(m.specs) > 0 {
			f.construct(m)
		}
	}
	f.p("\treturn r, nil\n}\n")

	// The methods.
	for _, m := range it.methods {
		f.p("\n")
		f.methodDecl(m)
	}
	return f.b.Bytes()
}

// summary describes m's policies for the wrapper's doc.
func (m *method) summary() string {
	if len(m.specs) == 0 {
		return "no policies: it calls the delegate directly"
	}
	var parts []string
	for _, s := range m.specs {
		p := s.kind.Name() + " " + s.instance(m.id)
		if s.config.set {
			p += " (from " + s.config.value + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// paramNames names m's parameters after the ctx: their own names when the
// file's code can use them, else p0, p1, ...
func (f *file) paramNames(m *method) []string {
	if m.sig == nil {
		return nil
	}
	used := map[string]bool{}
	for n := range f.taken {
		used[n] = true
	}
	for n := range declared(f.it) {
		used[n] = true
	}
	params := m.params()
	keep := make([]bool, len(params))
	for i, v := range params {
		n := v.Name()
		if n != "" && n != "_" && !used[n] {
			keep[i] = true
			used[n] = true
		}
	}
	out := make([]string, len(params))
	for i, v := range params {
		if keep[i] {
			out[i] = v.Name()
			continue
		}
		for j := i; ; j++ {
			if c := "p" + strconv.Itoa(j); !used[c] {
				out[i], used[c] = c, true
				break
			}
		}
	}
	return out
}

// paramType writes the type of m's i-th parameter after the ctx: as
// ...T when variadic and asked to, else as its slice.
func (f *file) paramType(m *method, i int, v *types.Var, dots bool) string {
	if m.sig.Variadic() && i == len(m.params())-1 {
		elem := v.Type().(*types.Slice).Elem()
		if dots {
			return "..." + f.typ(elem)
		}
		return "[]" + f.typ(elem)
	}
	return f.typ(v.Type())
}

// pipelineT is the T of m's pipeline.
func (f *file) pipelineT(m *method) string {
	switch {
	case m.shape == shapeFuture:
		return f.typ(m.elem)
	case len(m.results) == 0:
		return "struct{}"
	case len(m.results) == 1:
		return f.typ(m.results[0])
	default:
		return resultName(f.it, m) + f.typeArgs
	}
}

// argType is the A of m's Bound.
func (f *file) argType(m *method) string {
	if m.usesArgs() {
		return argsName(f.it, m) + f.typeArgs
	}
	return f.paramType(m, 0, m.params()[0], false)
}

// fnType is the type of the function a method without parameters keeps.
func (f *file) fnType(m *method) string {
	ctx := f.use("context") + ".Context"
	if m.shape == shapeFuture {
		return fmt.Sprintf("func(%s) *%s.Future[%s]", ctx, f.use(futurePath), f.typ(m.elem))
	}
	if m.ctx {
		return fmt.Sprintf("func(%s) (%s, error)", ctx, f.pipelineT(m))
	}
	return fmt.Sprintf("func() (%s, error)", f.pipelineT(m))
}

// call writes the call of the delegate's method m with the arguments
// args (already expressions).
func (f *file) call(recv string, m *method, ctx string, args []string) string {
	var all []string
	if m.ctx {
		all = append(all, ctx)
	}
	all = append(all, args...)
	s := recv + "." + m.name + "(" + strings.Join(all, ", ")
	if m.sig.Variadic() {
		s += "..."
	}
	return s + ")"
}

// construct writes the block of the constructor that builds m's pipeline.
func (f *file) construct(m *method) {
	pl := f.use(pipelinePath)
	t := f.pipelineT(m)
	f.p("\t{\n")
	f.p("\t\tp, err := %s.NewBuilder[%s](reg, %q)", pl, t, m.id)
	for _, s := range m.specs {
		f.p(".\n\t\t\t%s(", s.kind.Method())
		f.configure(s)
		f.p(")")
	}
	f.p(".\n\t\t\tBuild()\n")
	f.p("\t\tif err != nil {\n\t\t\treturn nil, err\n\t\t}\n")
	ctxName := f.use("context")
	params := m.params()
	args := make([]string, len(params))
	for i := range params {
		switch {
		case m.usesArgs():
			args[i] = "a." + m.names[i]
		default:
			args[i] = "a"
		}
	}
	ctxParam := "ctx"
	if !m.ctx {
		ctxParam = "_"
	}
	switch {
	case m.bound() && m.shape == shapeFuture:
		f.p("\t\tr.p%s = %s.BindFuture(p, func(%s %s.Context, a %s) *%s.Future[%s] {\n", m.name, pl, ctxParam, ctxName,
			f.argType(m), f.use(futurePath), t)
		f.p("\t\t\treturn %s\n", f.call("delegate", m, "ctx", args))
		f.p("\t\t})\n")
	case m.bound():
		f.p("\t\tr.p%s = %s.Bind(p, func(%s %s.Context, a %s) (%s, error) {\n", m.name, pl, ctxParam, ctxName, f.argType(m), t)
		f.p("%s", f.delegateCall(m, args))
		f.p("\t\t})\n")
	case m.shape == shapeFuture:
		f.p("\t\tr.p%s = p\n", m.name)
		f.p("\t\tr.fn%s = func(%s %s.Context) *%s.Future[%s] {\n", m.name, ctxParam, ctxName, f.use(futurePath), t)
		f.p("\t\t\treturn %s\n", f.call("delegate", m, "ctx", nil))
		f.p("\t\t}\n")
	default:
		f.p("\t\tr.p%s = p\n", m.name)
		if m.ctx {
			f.p("\t\tr.fn%s = func(ctx %s.Context) (%s, error) {\n", m.name, ctxName, t)
		} else {
			f.p("\t\tr.fn%s = func() (%s, error) {\n", m.name, t)
		}
		f.p("%s", f.delegateCall(m, nil))
		f.p("\t\t}\n")
	}
	f.p("\t}\n")
}

// delegateCall writes the body of a sync pipeline function: the
// delegate's call, its results packed into the pipeline's T.
func (f *file) delegateCall(m *method, args []string) string {
	c := f.call("delegate", m, "ctx", args)
	switch len(m.results) {
	case 0:
		return "\t\t\treturn struct{}{}, " + c + "\n"
	case 1:
		return "\t\t\treturn " + c + "\n"
	}
	var vs, fields []string
	for i := range m.results {
		vs = append(vs, "r"+strconv.Itoa(i))
		fields = append(fields, "R"+strconv.Itoa(i)+": r"+strconv.Itoa(i))
	}
	return fmt.Sprintf("\t\t\t%s, err := %s\n\t\t\treturn %s%s{%s}, err\n",
		strings.Join(vs, ", "), c, resultName(f.it, m), f.typeArgs, strings.Join(fields, ", "))
}

// configure writes the builder closure of spec s, or nil.
func (f *file) configure(s *kindSpec) {
	if !s.name.set && !s.config.set && len(s.settings) == 0 {
		f.p("nil")
		return
	}
	pkgName := f.use(s.kind.PkgPath())
	f.p("func(c *%s.Config) {\n", pkgName)
	if s.name.set {
		f.p("\t\t\t\tc.Name = %q\n", s.name.value)
	}
	if s.config.set {
		f.p("\t\t\t\tc.BaseConfig = %q\n", s.config.value)
	}
	for _, set := range s.settings {
		field, v, zero := s.kind.Field(set.index, set.parsed)
		switch {
		case zero && set.key == "enabled":
			f.p("\t\t\t\tc.Enable()\n")
		case zero:
			f.p("\t\t\t\tc.SetZero(%q)\n", set.key)
		case field == "":
			f.ds.errorf(set.pos, codeUsage, "r4cgen cannot write %s=%s of %s in Go (a bug of r4cgen)", set.key, set.text, s.kind.Name())
		default:
			lit, ok := f.literal(v)
			if !ok {
				f.ds.errorf(set.pos, codeUsage, "r4cgen cannot write %s=%s of %s in Go (a bug of r4cgen)", set.key, set.text, s.kind.Name())
				continue
			}
			f.p("\t\t\t\tc.%s = %s\n", field, lit)
		}
	}
	f.p("\t\t\t}")
}

var durationType = reflect.TypeFor[time.Duration]()

// literal writes the Go expression of a key's value.
func (f *file) literal(v reflect.Value) (string, bool) {
	t := v.Type()
	switch {
	case t == durationType:
		return f.duration(time.Duration(v.Int())), true
	case t.PkgPath() != "" && (t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64):
		var n int64
		if t.Kind() >= reflect.Uint {
			n = int64(v.Uint())
		} else {
			n = v.Int()
		}
		name, ok := f.enums(t.PkgPath(), t.Name(), n)
		if !ok {
			return "", false
		}
		return f.use(t.PkgPath()) + "." + name, true
	}
	switch t.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), true
	}
	return "", false
}

// duration writes d in the largest unit that divides it: 2 * time.Second,
// 1500 * time.Millisecond, time.Minute.
func (f *file) duration(d time.Duration) string {
	tm := f.use("time")
	units := []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"},
		{time.Microsecond, "Microsecond"}, {time.Nanosecond, "Nanosecond"}}
	for _, u := range units {
		if d%u.d == 0 {
			if d == u.d {
				return tm + "." + u.name
			}
			return strconv.FormatInt(int64(d/u.d), 10) + " * " + tm + "." + u.name
		}
	}
	return "0" // unreachable: a Nanosecond divides every duration
}

// methodDecl writes the wrapper's method m.
func (f *file) methodDecl(m *method) {
	n := wrapperNames(f.it)
	var params []string
	if m.ctx {
		params = append(params, "ctx "+f.typ(m.sig.Params().At(0).Type()))
	}
	for i, v := range m.params() {
		params = append(params, m.names[i]+" "+f.paramType(m, i, v, true))
	}
	var results []string
	for v := range m.sig.Results().Variables() {
		results = append(results, f.typ(v.Type()))
	}
	res := strings.Join(results, ", ")
	if len(results) > 1 {
		res = "(" + res + ")"
	}
	if len(m.specs) == 0 {
		f.doc("", fmt.Sprintf("%s calls the delegate's %s directly: no directive declares a policy for it.", m.name, m.name))
	} else {
		f.doc("", fmt.Sprintf("%s calls the delegate's %s through the pipeline %s (%s).", m.name, m.name, m.id, m.kindList()))
	}
	f.p("func (r *%s%s) %s(%s) %s {\n", n.wrapper, f.typeArgs, m.name, strings.Join(params, ", "), res)
	defer f.p("}\n")
	if len(m.specs) == 0 {
		f.p("\treturn %s\n", f.call("r.delegate", m, "ctx", m.names))
		return
	}
	callerCtx := "ctx"
	if !m.ctx {
		callerCtx = f.use("context") + ".Background()"
	}
	if m.shape == shapeFuture {
		if m.bound() {
			f.p("\treturn r.p%s.ExecuteFuture(%s, %s)\n", m.name, callerCtx, f.argValue(m))
		} else {
			f.p("\treturn r.p%s.ExecuteFuture(%s, r.fn%s)\n", m.name, callerCtx, m.name)
		}
		return
	}
	var call string
	switch {
	case m.bound() && m.ctx:
		call = fmt.Sprintf("r.p%s.ExecuteContext(ctx, %s)", m.name, f.argValue(m))
	case m.bound():
		call = fmt.Sprintf("r.p%s.Execute(%s)", m.name, f.argValue(m))
	case m.ctx:
		call = fmt.Sprintf("r.p%s.ExecuteContext(ctx, r.fn%s)", m.name, m.name)
	default:
		call = fmt.Sprintf("r.p%s.Execute(r.fn%s)", m.name, m.name)
	}
	switch len(m.results) {
	case 0:
		f.p("\t_, err := %s\n\treturn err\n", call)
	case 1:
		f.p("\treturn %s\n", call)
	default:
		var out []string
		for i := range m.results {
			out = append(out, "res.R"+strconv.Itoa(i))
		}
		f.p("\tres, err := %s\n\treturn %s, err\n", call, strings.Join(out, ", "))
	}
}

// argValue writes the argument a method passes to its Bound.
func (f *file) argValue(m *method) string {
	if !m.usesArgs() {
		return m.names[0]
	}
	var fields []string
	for _, n := range m.names {
		fields = append(fields, n+": "+n)
	}
	return argsName(f.it, m) + f.typeArgs + "{" + strings.Join(fields, ", ") + "}"
}

// kindList names m's policies, outermost first.
func (m *method) kindList() string {
	var ks []string
	for _, s := range m.specs {
		ks = append(ks, s.kind.Name())
	}
	return strings.Join(ks, ", ")
}

// constName returns the name of the constant of the named type typeName
// in pkg whose value is v.
func constName(pkg *types.Package, typeName string, v int64) (string, bool) {
	tn, _ := pkg.Scope().Lookup(typeName).(*types.TypeName)
	if tn == nil {
		return "", false
	}
	for _, n := range pkg.Scope().Names() {
		c, ok := pkg.Scope().Lookup(n).(*types.Const)
		if !ok || !c.Exported() || !types.Identical(c.Type(), tn.Type()) {
			continue
		}
		if x, exact := constant.Int64Val(c.Val()); exact && x == v {
			return n, true
		}
	}
	return "", false
}
