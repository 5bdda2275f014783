package adaptivelimit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// limitMachine drives a limiter with random interleavings of acquisitions,
// synchronous calls through the stage (succeeding, dropping, failing,
// cancelled, panicking), asynchronous calls completed or cancelled in any
// order, and clock advances, checking the invariants after every step. In
// every step the user's code may panic wherever it runs: DropIf, a listener
// of the limiter's events, and (async) the user's OnComplete on the work's
// future and on the stage's future; the slots and the drops are still
// accounted for, and every future completes.
type limitMachine struct {
	clk *clocktest.ManualClock
	l   *adaptivelimit.Limiter
	h   *adaptivelimit.Handle
	cfg adaptivelimit.Config

	permits  []adaptivelimit.Permit
	promises []*promise
	futures  []*futureString

	drops, rejections int64
	excess            int // in flight allowed above the limit after it was lowered
	lastLimit         int

	// The user's code that panics during the current step: DropIf, a
	// listener of the limiter's events, the user's OnComplete on the work's
	// future (registered before the stage's own) and on the stage's future.
	panicDropIf, panicListener, panicWork, panicOuter bool
}

// The values the user's code panics with.
const (
	pDropIf   = "DropIf"
	pListener = "listener"
	pWork     = "work callback"
	pOuter    = "outer callback"
)

// drawPanics draws which of the user's code panics in this step.
func (m *limitMachine) drawPanics(t *rapid.T, async bool) {
	m.panicDropIf = rapid.Bool().Draw(t, "panicDropIf")
	m.panicListener = rapid.Bool().Draw(t, "panicListener")
	m.panicWork = async && rapid.Bool().Draw(t, "panicWork")
	m.panicOuter = async && rapid.Bool().Draw(t, "panicOuter")
}

func (m *limitMachine) quiet() {
	m.panicDropIf, m.panicListener, m.panicWork, m.panicOuter = false, false, false, false
}

// userPanic runs fn and returns the user-code panic it raised ("" if
// none); any other panic goes on.
func userPanic(fn func()) (p string) {
	defer func() {
		if r := recover(); r != nil {
			switch r {
			case pDropIf, pListener, pWork, pOuter, "boom":
				p = r.(string)
			default:
				panic(r)
			}
		}
	}()
	fn()
	return ""
}

var errPlain = errors.New("plain failure")

func newLimitMachine(t *rapid.T) *limitMachine {
	minL := rapid.IntRange(1, 4).Draw(t, "minLimit")
	maxL := rapid.IntRange(minL, 12).Draw(t, "maxLimit")
	cfg := adaptivelimit.Config{
		Algorithm:        adaptivelimit.Algorithm(rapid.IntRange(0, 3).Draw(t, "algorithm")),
		MinLimit:         minL,
		MaxLimit:         maxL,
		InitialLimit:     rapid.IntRange(minL, maxL).Draw(t, "initialLimit"),
		MinWindowSamples: rapid.IntRange(1, 4).Draw(t, "minWindowSamples"),
		Window:           time.Second,
		BackoffRatio:     0.5,
		QueueSize:        rapid.IntRange(1, 4).Draw(t, "queueSize"),
		ProbeMultiplier:  1,
		LowPriorityShare: rapid.SampledFrom([]float64{0.5, 0.8, 1}).Draw(t, "lowPriorityShare"),
		LatencyCeiling:   rapid.SampledFrom([]time.Duration{0, 700 * time.Millisecond}).Draw(t, "latencyCeiling"),
	}
	m := &limitMachine{lastLimit: cfg.InitialLimit}
	cfg.DropIf = func(error) bool {
		if m.panicDropIf {
			panic(pDropIf)
		}
		return false
	}
	bus := &events.Bus{}
	bus.Subscribe(func(events.Event) {
		if m.panicListener {
			panic(pListener)
		}
	})
	clk := clocktest.NewManualClock()
	l, err := adaptivelimit.New(cfg, policy.Env{Clock: clk, Events: bus, Instance: "prop"})
	if err != nil {
		t.Fatal(err)
	}
	m.clk, m.l, m.h, m.cfg = clk, l, l.Handle(), l.Handle().Config()
	return m
}

func (m *limitMachine) held() int { return len(m.permits) + len(m.promises) }

// admitted checks what must hold right after a call was admitted.
func (m *limitMachine) admitted(t *rapid.T) {
	if in, lim := m.h.InFlight(), m.h.Limit(); in > lim {
		t.Fatalf("admitted a call with %d in flight and a limit of %d", in, lim)
	}
}

// refused checks that a refused call was refused with the rejection error
// and had no slot open to its priority.
func (m *limitMachine) refused(t *rapid.T, err error, p adaptivelimit.Priority) {
	if !errors.Is(err, adaptivelimit.ErrLimitExceeded) || !errors.Is(err, policy.ErrRejected) {
		t.Fatalf("refused with %v", err)
	}
	m.noSlot(t, p)
}

func (m *limitMachine) noSlot(t *rapid.T, p adaptivelimit.Priority) {
	m.rejections++
	in, lim := m.h.InFlight(), m.h.Limit()
	share := lim
	if p < 0 {
		share = max(1, int(m.cfg.LowPriorityShare*float64(lim)))
	}
	if in < share {
		t.Fatalf("refused a %v call with %d in flight, limit %d", p, in, lim)
	}
}

func (m *limitMachine) priority(t *rapid.T) (context.Context, adaptivelimit.Priority) {
	p := adaptivelimit.Priority(rapid.IntRange(-1, 1).Draw(t, "priority"))
	return adaptivelimit.WithPriority(context.Background(), p), p
}

func (m *limitMachine) Acquire(t *rapid.T) {
	ctx, p := m.priority(t)
	pm, err := m.l.Acquire(ctx)
	if err != nil {
		m.refused(t, err, p)
		return
	}
	m.permits = append(m.permits, pm)
	m.admitted(t)
}

func (m *limitMachine) TryAcquire(t *rapid.T) {
	pm, ok := m.l.TryAcquire()
	if !ok {
		m.noSlot(t, adaptivelimit.PriorityNormal)
		return
	}
	m.permits = append(m.permits, pm)
	m.admitted(t)
}

func (m *limitMachine) Release(t *rapid.T) {
	if len(m.permits) == 0 {
		return // nothing held: a no-op step
	}
	i := rapid.IntRange(0, len(m.permits)-1).Draw(t, "permit")
	o := adaptivelimit.Outcome(rapid.IntRange(0, 2).Draw(t, "outcome"))
	if o == adaptivelimit.OutcomeDrop {
		m.drops++
	}
	m.panicListener = rapid.Bool().Draw(t, "panicListener")
	defer m.quiet()
	if p := userPanic(func() { m.l.Release(m.permits[i], o) }); p != "" && p != pListener {
		t.Fatalf("Release panicked with %q", p)
	}
	m.permits = append(m.permits[:i], m.permits[i+1:]...)
}

func (m *limitMachine) Call(t *rapid.T) {
	ctx, p := m.priority(t)
	kind := rapid.SampledFrom([]string{"success", "drop", "failure", "cancel", "panic"}).Draw(t, "kind")
	lat := time.Duration(rapid.IntRange(0, 1500).Draw(t, "latencyMs")) * time.Millisecond
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	before := m.h.Snapshot().Windows
	called := false
	fn := func(ctx context.Context) (string, error) {
		called = true
		m.admitted(t)
		m.clk.Advance(lat)
		switch kind {
		case "drop":
			return "", fmt.Errorf("call: %w", policy.ErrCallTimeout)
		case "failure":
			return "", errPlain
		case "cancel":
			cancel()
			return "", ctx.Err()
		case "panic":
			panic("boom")
		}
		return "ok", nil
	}
	links := []policy.Link[string]{adaptivelimit.Stage[string](m.l)}
	m.drawPanics(t, false)
	defer m.quiet()
	var err error
	panicked := userPanic(func() { _, err = policy.NewChain(links...).Next(fn, nil).Call(ctx) })
	if !called {
		if panicked == pListener {
			m.noSlot(t, p) // the rejection was counted before the event
			return
		}
		if panicked != "" {
			t.Fatalf("a refused call panicked with %q", panicked)
		}
		m.refused(t, err, p)
		return
	}
	if kind == "drop" {
		m.drops++
	}
	switch panicked {
	case "":
		if kind == "panic" || kind == "failure" && m.panicDropIf {
			t.Fatalf("a %s call did not panic", kind)
		}
	case "boom":
		if kind != "panic" {
			t.Fatalf("the work's panic appeared in a %s call", kind)
		}
	case pDropIf:
		if kind != "failure" {
			t.Fatalf("DropIf ran for a %s call", kind)
		}
	case pListener:
		if kind != "success" && kind != "drop" {
			t.Fatalf("a %s call published an event", kind)
		}
	default:
		t.Fatalf("a %s call panicked with %q", kind, panicked)
	}
	if kind != "success" && kind != "drop" && m.h.Snapshot().Windows != before {
		t.Fatalf("a %s call ended a window", kind)
	}
}

func (m *limitMachine) StartAsync(t *rapid.T) {
	ctx, p := m.priority(t)
	pr := newPromise()
	started := false
	m.panicListener = rapid.Bool().Draw(t, "panicListener")
	defer m.quiet()
	var fut *futureString
	panicked := userPanic(func() {
		fut = policy.NewChain(adaptivelimit.Stage[string](m.l)).AsyncNext(
			func(context.Context) *futureString {
				started = true
				// The user's callback comes before the stage's own.
				pr.Future().OnComplete(func(string, error) {
					if m.panicWork {
						panic(pWork)
					}
				})
				return pr.Future()
			}).Call(ctx)
	})
	if !started {
		if panicked == pListener {
			m.noSlot(t, p)
			return
		}
		_, err := fut.Get(context.Background())
		m.refused(t, err, p)
		return
	}
	if panicked != "" {
		t.Fatalf("an admitted async call panicked with %q", panicked)
	}
	fut.OnComplete(func(string, error) {
		if m.panicOuter {
			panic(pOuter)
		}
	})
	m.promises = append(m.promises, pr)
	m.futures = append(m.futures, fut)
	m.admitted(t)
}

func (m *limitMachine) CompleteAsync(t *rapid.T) {
	if len(m.promises) == 0 {
		return // nothing pending: a no-op step
	}
	i := rapid.IntRange(0, len(m.promises)-1).Draw(t, "future")
	pr, fut := m.promises[i], m.futures[i]
	how := rapid.SampledFrom([]string{"complete", "drop", "failure", "cancel outer", "cancel inner"}).Draw(t, "how")
	m.drawPanics(t, true)
	defer m.quiet()
	panicked := userPanic(func() {
		switch how {
		case "complete":
			pr.Complete("v")
		case "drop":
			pr.Fail(policy.ErrBulkheadFull)
		case "failure":
			pr.Fail(errPlain)
		case "cancel outer":
			fut.Cancel()
		case "cancel inner":
			pr.Future().Cancel()
		}
	})
	if how == "drop" {
		m.drops++ // recorded whatever panicked: the bookkeeping comes first
	}
	if panicked != "" && !(m.panicWork || m.panicOuter || m.panicListener || m.panicDropIf && how == "failure") {
		t.Fatalf("%s: panicked with %q, and nothing was to panic", how, panicked)
	}
	if panicked == "" && (m.panicWork || m.panicOuter || m.panicDropIf && how == "failure") {
		t.Fatalf("%s: the user's panic went missing", how)
	}
	select {
	case <-fut.Done():
	default:
		t.Fatal("the outer future must be complete once the inner one is")
	}
	m.promises = append(m.promises[:i], m.promises[i+1:]...)
	m.futures = append(m.futures[:i], m.futures[i+1:]...)
}

func (m *limitMachine) Advance(t *rapid.T) {
	m.clk.Advance(time.Duration(rapid.IntRange(0, 1500).Draw(t, "advanceMs")) * time.Millisecond)
}

// Check runs after every action.
func (m *limitMachine) Check(t *rapid.T) {
	s := m.h.Snapshot()
	if s.Limit < m.cfg.MinLimit || s.Limit > m.cfg.MaxLimit {
		t.Fatalf("limit %d outside [%d, %d]", s.Limit, m.cfg.MinLimit, m.cfg.MaxLimit)
	}
	if s.InFlight != m.held() {
		t.Fatalf("in flight %d, but %d slots are held", s.InFlight, m.held())
	}
	if s.Limit < m.lastLimit && s.InFlight > s.Limit {
		m.excess = max(m.excess, s.InFlight) // lowered below the calls in flight
	}
	if s.InFlight <= s.Limit {
		m.excess = 0
	}
	if s.InFlight > s.Limit && s.InFlight > m.excess {
		t.Fatalf("in flight %d above limit %d, and not because the limit went down", s.InFlight, s.Limit)
	}
	m.lastLimit = s.Limit
	if s.Drops != m.drops {
		t.Fatalf("drops %d, want %d", s.Drops, m.drops)
	}
	if s.Rejections != m.rejections {
		t.Fatalf("rejections %d, want %d", s.Rejections, m.rejections)
	}
	if int(s.EstimatedLimit) != s.Limit {
		t.Fatalf("estimate %v, limit %d", s.EstimatedLimit, s.Limit)
	}
}

// finish gives every slot back and checks that none is left.
func (m *limitMachine) finish(t *rapid.T) {
	for _, p := range m.permits {
		m.l.Release(p, adaptivelimit.OutcomeSuccess)
	}
	for _, pr := range m.promises {
		pr.Complete("late")
	}
	m.permits, m.promises, m.futures = nil, nil, nil
	if in := m.h.InFlight(); in != 0 {
		t.Fatalf("%d slots left after every call ended", in)
	}
}

func TestPropertyInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newLimitMachine(t)
		actions := map[string]func(*rapid.T){
			"acquire":       m.Acquire,
			"tryAcquire":    m.TryAcquire,
			"release":       m.Release,
			"call":          m.Call,
			"startAsync":    m.StartAsync,
			"completeAsync": m.CompleteAsync,
			"advance":       m.Advance,
			"":              m.Check,
		}
		for range 5 { // rapid's default of 30 steps is short for windows to come and go
			t.Repeat(actions)
		}
		m.finish(t)
	})
}
