// Package caller finds, from inside a listener of r4c's events, the code
// that made the call which caused the event: the first frame of the
// goroutine's stack outside the r4c module (the module's own test packages
// count as outside). The log listeners point their records there instead of
// at their own line.
package caller

import (
	"runtime"
	"strings"
)

const module = "github.com/resilience4cata/r4c"

// maxDepth bounds the frames looked at: a call goes through a pipeline's
// stages (a dozen at most), the bus and a listener.
const maxDepth = 64

// PC returns the program counter of the first frame above the caller of PC
// whose function is not in the r4c module, or 0 if there is none (an event
// published on a goroutine of r4c's own, such as events.Buffered's). It
// allocates nothing.
func PC() uintptr {
	var pcs [maxDepth]uintptr
	n := runtime.Callers(2, pcs[:])
	for _, pc := range pcs[:n] {
		f := runtime.FuncForPC(pc - 1)
		if f == nil {
			continue
		}
		if outside(f.Name()) {
			return pc
		}
	}
	return 0
}

// outside reports whether the function named name is not r4c's: another
// module's, the standard library's (but the runtime's), or one of r4c's
// test packages.
func outside(name string) bool {
	if strings.HasPrefix(name, "runtime.") {
		return false
	}
	rest, ok := strings.CutPrefix(name, module)
	if !ok || rest == "" || (rest[0] != '/' && rest[0] != '.' && rest[0] != '_') {
		return true // another module, or one whose path only starts like r4c's
	}
	if strings.HasPrefix(rest, "_test.") {
		return true // the root package's tests
	}
	if rest[0] == '.' {
		return false // the root package
	}
	// rest is "/path/to/pkg.Func" or "/path/to/pkg_test.Func...".
	pkg := rest
	if i := strings.LastIndexByte(rest, '/'); i >= 0 {
		pkg = rest[i+1:]
	}
	if i := strings.IndexByte(pkg, '.'); i >= 0 {
		pkg = pkg[:i]
	}
	return strings.HasSuffix(pkg, "_test")
}

// Frame returns the file, line and function of pc, as PC returned it.
func Frame(pc uintptr) (file string, line int, function string) {
	if pc == 0 {
		return "", 0, ""
	}
	f := runtime.FuncForPC(pc - 1)
	if f == nil {
		return "", 0, ""
	}
	file, line = f.FileLine(pc - 1)
	return file, line, f.Name()
}
