//go:build !race

package hedge_test

const raceEnabled = false
