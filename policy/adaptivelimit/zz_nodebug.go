//go:build !littledebug

package adaptivelimit

const littleTrace = false

func dbg(string, ...any) {}
