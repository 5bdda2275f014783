//go:build !race

package adaptivelimit

import "testing"

// TestAllocsLittleRecompute: Little's recompute allocates nothing, in any
// phase (slow start from 1, the descent from 400, cruise and its probes).
func TestAllocsLittleRecompute(t *testing.T) {
	for _, initial := range []int{1, 20, 400} {
		m := newLittleModel(initial)
		if n := testing.AllocsPerRun(300, func() { m.window() }); n != 0 {
			t.Errorf("initial limit %d: %v allocations per window", initial, n)
		}
	}
}
