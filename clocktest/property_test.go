package clocktest_test

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/policy"
)

// TestPropertyTimersFireWhenDueAndInOrder arms random timers between random
// advances (and stops some of them), and checks that each timer fires
// exactly once, during the advance that reaches its deadline, with Now
// reading its deadline, in deadline order with ties in arming order, and
// that a stopped timer never fires.
func TestPropertyTimersFireWhenDueAndInOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		clk := clocktest.NewManualClock()
		type timer struct {
			id      int
			when    time.Duration // since Start
			t       policy.Timer
			stopped bool
		}
		type firing struct {
			id   int
			at   time.Duration // Now when it fired
			step int           // the advance during which it fired
		}
		var (
			timers []*timer
			fired  []firing
			step   int
		)
		now := func() time.Duration { return clk.Now().Sub(clocktest.Start) }

		steps := rapid.IntRange(1, 12).Draw(t, "steps")
		for range steps {
			for range rapid.IntRange(0, 6).Draw(t, "arm") {
				// Few distinct delays, so equal deadlines are common.
				d := time.Duration(rapid.IntRange(1, 8).Draw(t, "delay")) * time.Millisecond
				tm := &timer{id: len(timers), when: now() + d}
				tm.t = clk.AfterFunc(d, func() {
					fired = append(fired, firing{id: tm.id, at: now(), step: step})
				})
				timers = append(timers, tm)
			}
			for _, tm := range timers {
				if !tm.stopped && tm.when > now() && rapid.IntRange(0, 9).Draw(t, "stop") == 0 {
					if !tm.t.Stop() {
						t.Fatalf("Stop of pending timer %d reported false", tm.id)
					}
					tm.stopped = true
				}
			}
			pending := 0
			for _, tm := range timers {
				if !tm.stopped && tm.when > now() {
					pending++
				}
			}
			if got := clk.Pending(); got != pending {
				t.Fatalf("Pending() = %d, want %d", got, pending)
			}

			step++
			before := now()
			adv := time.Duration(rapid.IntRange(0, 10).Draw(t, "advance")) * time.Millisecond
			clk.Advance(adv)
			if got := now(); got != before+adv {
				t.Fatalf("after Advance(%v) from %v, Now = %v", adv, before, got)
			}
			// Everything due by now, and nothing later, has fired.
			for _, tm := range timers {
				if tm.stopped {
					continue
				}
				due := tm.when <= now()
				idx := slices.IndexFunc(fired, func(f firing) bool { return f.id == tm.id })
				if due != (idx >= 0) {
					t.Fatalf("timer %d due at %v: fired=%v at Now %v", tm.id, tm.when, idx >= 0, now())
				}
				if idx >= 0 {
					f := fired[idx]
					if f.at != tm.when {
						t.Fatalf("timer %d due at %v fired with Now %v", tm.id, tm.when, f.at)
					}
					wantStep := step
					if tm.when <= before {
						wantStep = -1 // due before this advance: must have fired in an earlier one
					}
					if wantStep >= 0 && f.step != wantStep {
						t.Fatalf("timer %d due at %v fired during advance %d, want %d", tm.id, tm.when, f.step, wantStep)
					}
				}
			}
		}

		// Fired exactly once each, in (deadline, arming) order.
		seen := map[int]bool{}
		for _, f := range fired {
			if seen[f.id] {
				t.Fatalf("timer %d fired twice", f.id)
			}
			seen[f.id] = true
			if timers[f.id].stopped {
				t.Fatalf("stopped timer %d fired", f.id)
			}
		}
		order := slices.IsSortedFunc(fired, func(a, b firing) int {
			return cmp.Or(cmp.Compare(timers[a.id].when, timers[b.id].when), cmp.Compare(a.id, b.id))
		})
		if !order {
			t.Fatalf("fired out of order: %v", fired)
		}
	})
}

// TestPropertyNanotimeFollowsNow checks that Nanotime and Now move together
// through any sequence of Advance and Set, backwards included.
func TestPropertyNanotimeFollowsNow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		clk := clocktest.NewManualClock()
		for range rapid.IntRange(1, 20).Draw(t, "ops") {
			if rapid.Bool().Draw(t, "set") {
				off := time.Duration(rapid.Int64Range(-int64(time.Hour), int64(time.Hour)).Draw(t, "to"))
				clk.Set(clocktest.Start.Add(off))
				if got := clk.Nanotime(); got != int64(off) {
					t.Fatalf("after Set(Start%+v), Nanotime = %d", off, got)
				}
			} else {
				before := clk.Nanotime()
				d := time.Duration(rapid.Int64Range(-int64(time.Second), int64(time.Hour)).Draw(t, "by"))
				clk.Advance(d)
				want := before + max(int64(d), 0)
				if got := clk.Nanotime(); got != want {
					t.Fatalf("after Advance(%v) from %d, Nanotime = %d, want %d", d, before, got, want)
				}
			}
			if got, want := clk.Now(), clocktest.Start.Add(time.Duration(clk.Nanotime())); !got.Equal(want) {
				t.Fatalf("Now = %v, want Start+Nanotime = %v", got, want)
			}
		}
	})
}
