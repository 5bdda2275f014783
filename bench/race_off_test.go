//go:build !race

package bench_test

// raceEnabled reports whether the race detector is on: it allocates, so
// allocation tests skip under it.
const raceEnabled = false
