//go:build littledebug

package adaptivelimit

import "fmt"

const littleTrace = true

// Debug is a temporary hook for the algorithm work.
var Debug func(string)

func dbg(format string, a ...any) {
	if Debug != nil {
		Debug(fmt.Sprintf(format, a...))
	}
}
