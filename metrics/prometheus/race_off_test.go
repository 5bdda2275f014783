//go:build !race

package r4cprometheus_test

// raceEnabled reports whether the race detector is on: allocation counts
// are meaningless under it.
const raceEnabled = false
