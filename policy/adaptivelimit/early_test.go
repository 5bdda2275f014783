package adaptivelimit_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// earlyFixture is a limiter with InitialLimit 40 on a manual clock whose
// 40 slots are all taken.
func earlyFixture(t *testing.T, alg adaptivelimit.Algorithm) (*adaptivelimit.Limiter, *clocktest.ManualClock, []adaptivelimit.Permit) {
	t.Helper()
	clk := clocktest.NewManualClock()
	l, err := adaptivelimit.New(adaptivelimit.Config{Algorithm: alg, InitialLimit: 40, MaxLimit: 100}, policy.Env{Clock: clk})
	require.NoError(t, err)
	ps := make([]adaptivelimit.Permit, 40)
	for i := range ps {
		p, ok := l.TryAcquire()
		require.True(t, ok)
		ps[i] = p
	}
	return l, clk, ps
}

// Little answers a window whose drops are most of its samples as soon as
// they reach max(2×MinWindowSamples, limit/2), without waiting for the
// window's end: the limit is cut 200 ms into a 1 s window.
func TestLittleDropsEndAWindowEarly(t *testing.T) {
	l, clk, ps := earlyFixture(t, adaptivelimit.Little)
	clk.Advance(200 * time.Millisecond)
	for i := range 19 {
		l.Release(ps[i], adaptivelimit.OutcomeDrop)
	}
	assert.Equal(t, 40, l.Handle().Limit(), "19 drops are under the trip of 20")
	l.Release(ps[19], adaptivelimit.OutcomeDrop)
	assert.Less(t, l.Handle().Limit(), 40, "the 20th drop ends the window and the limit is cut")
	cut := l.Handle().Limit()

	// After a cut the next window runs its course: the calls admitted
	// before it still time out, and are no news.
	for i := 20; i < 40; i++ {
		l.Release(ps[i], adaptivelimit.OutcomeDrop)
	}
	assert.Equal(t, cut, l.Handle().Limit(), "drops of calls admitted before the cut end no window early")
}

// Drops that are not most of the window's samples, however many, let the
// window run its course.
func TestLittleDropsAmongSuccessesDoNotEndAWindowEarly(t *testing.T) {
	l, clk, ps := earlyFixture(t, adaptivelimit.Little)
	clk.Advance(200 * time.Millisecond)
	for i := range 40 {
		o := adaptivelimit.OutcomeSuccess
		if i%2 == 0 {
			o = adaptivelimit.OutcomeDrop // 20 drops, half of 40 samples
		}
		l.Release(ps[i], o)
	}
	assert.Equal(t, 40, l.Handle().Limit())
}

// The reference algorithms keep their windows exactly: drops never end one
// early.
func TestReferenceAlgorithmsKeepWholeWindows(t *testing.T) {
	for _, alg := range []adaptivelimit.Algorithm{adaptivelimit.Gradient2, adaptivelimit.AIMD, adaptivelimit.Vegas} {
		t.Run(alg.String(), func(t *testing.T) {
			l, clk, ps := earlyFixture(t, alg)
			clk.Advance(200 * time.Millisecond)
			for _, p := range ps {
				l.Release(p, adaptivelimit.OutcomeDrop)
			}
			assert.Equal(t, 40, l.Handle().Limit(), "no window ended before its second")
		})
	}
}
