package adaptivelimit

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/policy"
)

// staleCAS runs the first pass of admit with set in the middle: it reads
// the word and lim as admit does, runs set, then tries admit's CAS with
// what it read. It reports whether the CAS took a slot, and the limit it
// read.
func staleCAS(l *Limiter, set func()) (took bool, limit uint32) {
	w := l.hot.word.Load()
	lim := l.hot.lim.Load()
	set()
	if uint32(w) >= uint32(lim) {
		return false, uint32(lim)
	}
	return l.hot.word.CompareAndSwap(w, w+1), uint32(lim)
}

// A call that read the limit just before a setter lowered it is not
// admitted on it after the setter returned: its CAS fails and it reads
// again. The phantom sample that fails it is not counted in the window.
func TestLoweredLimitFailsAnAdmissionThatReadTheOldOne(t *testing.T) {
	l, err := New(Config{InitialLimit: 4, MinWindowSamples: 1}, policy.Env{})
	require.NoError(t, err)
	h := l.Handle()
	p, ok := l.TryAcquire()
	require.True(t, ok)
	took, read := staleCAS(l, func() { require.NoError(t, h.SetLimits(1, 2)) })
	assert.Equal(t, uint32(4), read, "the admission read the old limit")
	assert.Equal(t, 2, h.Limit())
	assert.False(t, took, "its CAS fails once the setter has returned")
	assert.Equal(t, 1, h.InFlight())
	p2, ok := l.TryAcquire()
	require.True(t, ok, "one slot of the new two is free")
	_, ok = l.TryAcquire()
	assert.False(t, ok, "reading again, it sees the new limit")
	assert.Equal(t, 2, h.InFlight())

	// A setter that changes nothing moves nothing: the CAS takes its slot.
	l.Release(p2, OutcomeIgnore)
	took, _ = staleCAS(l, func() { require.NoError(t, h.SetLimits(1, 2)) })
	assert.True(t, took)
	l.Release(p, OutcomeIgnore)
	assert.Equal(t, 1, h.InFlight())
	l.hot.word.Add(releaseInc)

	// The phantom samples are out of the window's count.
	assert.Equal(t, uint32(0), uint32(l.hot.word.Load()>>32)-l.win.baseSamples)
}
