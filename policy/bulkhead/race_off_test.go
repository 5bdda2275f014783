//go:build !race

package bulkhead_test

// raceEnabled reports whether the race detector is on: allocation counts
// are meaningless under it.
const raceEnabled = false
