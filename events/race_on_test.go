//go:build race

package events_test

// raceEnabled reports whether the race detector is on: allocation counts
// are not meaningful then.
const raceEnabled = true
