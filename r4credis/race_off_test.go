//go:build !race

package r4credis_test

// raceDetector reports whether the tests run with the race detector.
const raceDetector = false
