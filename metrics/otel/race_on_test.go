//go:build race

package r4cotel_test

// raceEnabled reports whether the race detector is on: allocation counts
// are meaningless under it.
const raceEnabled = true
