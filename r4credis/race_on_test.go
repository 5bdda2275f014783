//go:build race

package r4credis_test

// raceDetector reports whether the tests run with the race detector,
// which slows the clients (and, on a loaded machine, starves them) enough
// that a run at a fixed rate may leave part of the limit unused.
const raceDetector = true
