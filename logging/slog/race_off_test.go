//go:build !race

package r4cslog_test

// raceEnabled reports whether the race detector is on: allocation counts
// are meaningless under it.
const raceEnabled = false
