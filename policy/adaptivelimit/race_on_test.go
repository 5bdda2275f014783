//go:build race

package adaptivelimit_test

// raceEnabled reports whether the tests run under the race detector, which
// allocates and slows everything down.
const raceEnabled = true
