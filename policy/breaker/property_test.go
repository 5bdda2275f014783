package breaker_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/breaker"
)

var errIgnore = errors.New("ignore me")

// model is an independent, single-goroutine model of the breaker's state
// machine with a count-based window.
type model struct {
	cfg              breaker.Config
	failPct, slowPct int // the thresholds, in percent
	state            breaker.State
	since            time.Duration
	epoch            int
	ring             []outcome // closed: the window, oldest first
	// half-open
	trials, hoCalls, hoFails, hoSlow int
	changes                          []string // "from>to"
}

type outcome struct{ fail, slow bool }

func (m *model) enter(s breaker.State, now time.Duration) {
	if s != m.state {
		m.changes = append(m.changes, m.state.String()+">"+s.String())
	}
	m.state, m.since = s, now
	m.epoch++
	m.ring = nil
	m.trials, m.hoCalls, m.hoFails, m.hoSlow = 0, 0, 0, 0
}

// admit returns the epoch of the permit, or -1 if the call is refused.
func (m *model) admit(now time.Duration) int {
	for {
		switch m.state {
		case breaker.StateClosed, breaker.StateDisabled:
			return m.epoch
		case breaker.StateForcedOpen:
			return -1
		case breaker.StateOpen:
			if now-m.since < m.cfg.OpenFor {
				return -1
			}
			m.enter(breaker.StateHalfOpen, now)
		case breaker.StateHalfOpen:
			if m.cfg.MaxHalfOpenWait > 0 && now-m.since >= m.cfg.MaxHalfOpenWait {
				m.enter(breaker.StateOpen, now)
				continue
			}
			if m.trials >= m.cfg.HalfOpenCalls {
				return -1
			}
			m.trials++
			return m.epoch
		}
	}
}

func (m *model) trips(calls, fails, slow, min int) bool {
	if calls < min || calls == 0 {
		return false
	}
	// Exact integer arithmetic on the percentages the thresholds were
	// drawn as, independent of the breaker's floating-point fractions.
	return fails*100 >= m.failPct*calls || slow*100 >= m.slowPct*calls
}

func (m *model) record(epoch int, o outcome, ignored bool, now time.Duration) {
	if epoch != m.epoch || m.state == breaker.StateDisabled {
		return
	}
	switch m.state {
	case breaker.StateClosed:
		if ignored {
			return
		}
		m.ring = append(m.ring, o)
		if len(m.ring) > m.cfg.WindowSize {
			m.ring = m.ring[1:]
		}
		calls, fails, slow := m.closedFigures()
		if m.trips(calls, fails, slow, min(m.cfg.MinimumCalls, m.cfg.WindowSize)) {
			m.enter(breaker.StateOpen, now)
		}
	case breaker.StateHalfOpen:
		if ignored {
			m.trials--
			return
		}
		m.hoCalls++
		if o.fail {
			m.hoFails++
		}
		if o.slow {
			m.hoSlow++
		}
		if m.hoCalls == m.cfg.HalfOpenCalls {
			if m.trips(m.hoCalls, m.hoFails, m.hoSlow, m.cfg.HalfOpenCalls) {
				m.enter(breaker.StateOpen, now)
			} else {
				m.enter(breaker.StateClosed, now)
			}
		}
	}
}

func (m *model) closedFigures() (calls, fails, slow int) {
	for _, o := range m.ring {
		calls++
		if o.fail {
			fails++
		}
		if o.slow {
			slow++
		}
	}
	return
}

type heldPermit struct {
	p        breaker.Permit
	epoch    int
	start    time.Duration
	disabled bool // admitted while disabled: nothing is recorded, no predicate asked
}

// TestStateMachineProperties drives a breaker and the model with the same
// random operations and checks that they agree after each one, and that a
// half-open breaker never has more trial calls than HalfOpenCalls.
func TestStateMachineProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		failPct := rapid.IntRange(1, 100).Draw(t, "failureRate")
		slowPct := rapid.IntRange(1, 100).Draw(t, "slowRate")
		cfg := breaker.Config{
			WindowSize:            rapid.IntRange(1, 8).Draw(t, "windowSize"),
			MinimumCalls:          rapid.IntRange(1, 10).Draw(t, "minimumCalls"),
			FailureRateThreshold:  float64(failPct) / 100,
			SlowCallRateThreshold: float64(slowPct) / 100,
			SlowCallDuration:      1500 * time.Millisecond,
			OpenFor:               time.Second,
			HalfOpenCalls:         rapid.IntRange(1, 5).Draw(t, "halfOpenCalls"),
			IgnoreOn:              []error{errIgnore},
		}
		// The user's code may panic where it runs: RecordIf and IgnoreIf
		// (asked for errBoom only: errIgnore matches IgnoreOn first), and
		// a listener of the state changes. A failure stays a failure.
		var panicRecordIf, panicIgnoreIf, panicListener bool
		cfg.RecordIf = func(error) bool {
			if panicRecordIf {
				panic("RecordIf")
			}
			return true
		}
		cfg.IgnoreIf = func(error) bool {
			if panicIgnoreIf {
				panic("IgnoreIf")
			}
			return false
		}
		userPanic := func(fn func()) (p any) {
			defer func() { p = recover() }()
			fn()
			return nil
		}
		if rapid.Bool().Draw(t, "maxHalfOpenWait") {
			cfg.MaxHalfOpenWait = 2 * time.Second
		}
		clk := clocktest.NewManualClock()
		bus := &events.Bus{}
		var published []events.BreakerStateChanged
		stop := bus.Subscribe(func(e events.Event) {
			if c, ok := e.(events.BreakerStateChanged); ok {
				published = append(published, c)
			}
		})
		defer stop()
		defer bus.Subscribe(func(events.Event) {
			if panicListener {
				panic("listener")
			}
		})()
		b, err := breaker.New(cfg, policy.Env{Clock: clk, Events: bus})
		if err != nil {
			t.Fatal(err)
		}
		h := b.Handle()
		m := &model{cfg: cfg, failPct: failPct, slowPct: slowPct}
		now := func() time.Duration { return clk.Now().Sub(clocktest.Start) }
		var held []heldPermit

		for i := range rapid.IntRange(1, 120).Draw(t, "ops") {
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op <= 3: // a call arrives
				p, err := b.Allow()
				e := m.admit(now())
				if (err == nil) != (e >= 0) {
					t.Fatalf("op %d: Allow error %v, model admits %v (state %v)", i, err, e >= 0, m.state)
				}
				if err == nil {
					held = append(held, heldPermit{p, e, now(), m.state == breaker.StateDisabled})
				} else if !errors.Is(err, breaker.ErrOpen) || !errors.Is(err, policy.ErrRejected) {
					t.Fatalf("op %d: refusal %v", i, err)
				}
			case op <= 6 && len(held) > 0: // a call ends
				k := rapid.IntRange(0, len(held)-1).Draw(t, "permit")
				hp := held[k]
				held = append(held[:k], held[k+1:]...)
				var rerr error
				o := outcome{slow: now()-hp.start > cfg.SlowCallDuration}
				switch rapid.IntRange(0, 2).Draw(t, "outcome") {
				case 1:
					rerr, o.fail = errBoom, true
				case 2:
					rerr = errIgnore
				}
				panicRecordIf = rapid.Bool().Draw(t, "panicRecordIf")
				panicIgnoreIf = rapid.Bool().Draw(t, "panicIgnoreIf")
				panicListener = rapid.Bool().Draw(t, "panicListener")
				changes := len(m.changes)
				p := userPanic(func() { b.Record(context.Background(), hp.p, rerr) })
				m.record(hp.epoch, o, rerr == errIgnore, now())
				switch {
				case hp.disabled:
					if p != nil {
						t.Fatalf("op %d: Record of a disabled permit panicked with %v", i, p)
					}
				case rerr == errBoom && panicIgnoreIf:
					if p != "IgnoreIf" {
						t.Fatalf("op %d: IgnoreIf's panic: %v", i, p)
					}
				case rerr == errBoom && panicRecordIf:
					if p != "RecordIf" {
						t.Fatalf("op %d: RecordIf's panic: %v", i, p)
					}
				case panicListener && len(m.changes) > changes:
					if p != "listener" {
						t.Fatalf("op %d: the listener's panic: %v", i, p)
					}
				case p != nil:
					t.Fatalf("op %d: Record panicked with %v", i, p)
				}
				panicRecordIf, panicIgnoreIf, panicListener = false, false, false
			case op <= 8: // time passes
				clk.Advance(time.Duration(rapid.IntRange(0, 1500).Draw(t, "ms")) * time.Millisecond)
			default: // a manual transition
				to := breaker.State(rapid.IntRange(0, 4).Draw(t, "to"))
				panicListener = rapid.Bool().Draw(t, "panicListener")
				changes := len(m.changes)
				p := userPanic(func() {
					switch to {
					case breaker.StateClosed:
						h.TransitionToClosed()
					case breaker.StateOpen:
						h.TransitionToOpen()
					case breaker.StateHalfOpen:
						h.TransitionToHalfOpen()
					case breaker.StateDisabled:
						h.TransitionToDisabled()
					case breaker.StateForcedOpen:
						h.TransitionToForcedOpen()
					}
				})
				m.enter(to, now())
				if want := panicListener && len(m.changes) > changes; (p == "listener") != want || p != nil && p != "listener" {
					t.Fatalf("op %d: a transition to %v panicked with %v (listener panics: %v)", i, to, p, panicListener)
				}
				panicListener = false
			}

			s := h.Snapshot()
			if s.State != m.state {
				t.Fatalf("op %d: state %v, model %v", i, s.State, m.state)
			}
			switch m.state {
			case breaker.StateHalfOpen:
				if s.TrialCalls > cfg.HalfOpenCalls {
					t.Fatalf("op %d: %d trial calls, HalfOpenCalls %d", i, s.TrialCalls, cfg.HalfOpenCalls)
				}
				if s.TrialCalls != m.trials || s.BufferedCalls != m.hoCalls || s.Failures != m.hoFails || s.SlowCalls != m.hoSlow {
					t.Fatalf("op %d: snapshot %+v, model trials %d calls %d fails %d slow %d", i, s, m.trials, m.hoCalls, m.hoFails, m.hoSlow)
				}
			case breaker.StateClosed:
				calls, fails, slow := m.closedFigures()
				if s.BufferedCalls != calls || s.Failures != fails || s.SlowCalls != slow {
					t.Fatalf("op %d: snapshot %+v, model calls %d fails %d slow %d", i, s, calls, fails, slow)
				}
			}
		}
		// Every change of state the model saw was published, in order.
		if len(published) != len(m.changes) {
			t.Fatalf("%d state changes published, model %d", len(published), len(m.changes))
		}
		for i, c := range published {
			if c.From+">"+c.To != m.changes[i] {
				t.Fatalf("change %d: %s>%s, model %s", i, c.From, c.To, m.changes[i])
			}
		}
	})
}

// TestHalfOpenConcurrentTrials races many goroutines for the trial permits,
// round after round: each round admits exactly HalfOpenCalls of them.
func TestHalfOpenConcurrentTrials(t *testing.T) {
	const trials, workers, rounds = 3, 16, 50
	b, err := breaker.New(breaker.Config{HalfOpenCalls: trials, IgnoreOn: []error{errIgnore}}, policy.Env{Clock: clocktest.NewManualClock()})
	if err != nil {
		t.Fatal(err)
	}
	b.TransitionToHalfOpen()
	for r := range rounds {
		var admitted atomic.Int32
		var mu sync.Mutex
		var permits []breaker.Permit
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if p, err := b.Allow(); err == nil {
					admitted.Add(1)
					mu.Lock()
					permits = append(permits, p)
					mu.Unlock()
				}
			}()
		}
		close(start)
		wg.Wait()
		if n := admitted.Load(); n != trials {
			t.Fatalf("round %d: %d trials admitted, want %d", r, n, trials)
		}
		last := r == rounds-1
		for _, p := range permits {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if last {
					b.Record(context.Background(), p, nil)
				} else {
					b.Record(context.Background(), p, errIgnore) // gives the permit back
				}
			}()
		}
		wg.Wait()
	}
	if s := b.State(); s != breaker.StateClosed {
		t.Fatalf("state %v after successful trials", s)
	}
}

// TestStress mixes calls, failures, clock moves and manual transitions on
// many goroutines; run it with -race. The figures must stay consistent.
func TestStress(t *testing.T) {
	clk := clocktest.NewManualClock()
	for _, wt := range []breaker.WindowType{breaker.CountBased, breaker.TimeBased} {
		b, err := breaker.New(breaker.Config{WindowType: wt, WindowSize: 16, WindowDuration: time.Second, MinimumCalls: 8,
			HalfOpenCalls: 4, OpenFor: 10 * time.Millisecond, SlowCallDuration: 5 * time.Millisecond}, policy.Env{Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		st := breaker.Stage[int](b)
		var wg sync.WaitGroup
		var inTrial, maxTrial atomic.Int32
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 2000 {
					st.Run(context.Background(), policy.NewNext[int](nil, func(context.Context) (int, error) {
						if b.State() == breaker.StateHalfOpen {
							n := inTrial.Add(1)
							defer inTrial.Add(-1)
							for {
								m := maxTrial.Load()
								if n <= m || maxTrial.CompareAndSwap(m, n) {
									break
								}
							}
						}
						if (i+w)%3 != 0 {
							return 0, errBoom
						}
						return 1, nil
					}, nil))
					if w == 0 && i%50 == 0 {
						clk.Advance(3 * time.Millisecond)
					}
					if w == 1 && i%500 == 0 {
						b.TransitionToClosed()
					}
				}
			}()
		}
		wg.Wait()
		s := b.Handle().Snapshot()
		if s.BufferedCalls < 0 || s.Failures > s.BufferedCalls || s.SlowCalls > s.BufferedCalls {
			t.Fatalf("%v: inconsistent snapshot %+v", wt, s)
		}
		if wt == breaker.CountBased && s.BufferedCalls > 16 {
			t.Fatalf("%v: %d buffered calls in a window of 16", wt, s.BufferedCalls)
		}
		if s.Calls == 0 || s.NotPermitted == 0 {
			t.Fatalf("%v: the breaker never worked: %+v", wt, s)
		}
		// A call that sees "half-open" may be a closed call racing a
		// transition, so this bounds it loosely: never all eight workers.
		if m := maxTrial.Load(); m > 4+4 {
			t.Fatalf("%v: %d calls inside while half-open", wt, m)
		}
	}
}
