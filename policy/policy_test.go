package policy_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// trace records the steps of a call, safe for concurrent use.
type trace struct {
	mu    sync.Mutex
	steps []string
}

func (tr *trace) add(s string) {
	tr.mu.Lock()
	tr.steps = append(tr.steps, s)
	tr.mu.Unlock()
}

func (tr *trace) get() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.steps...)
}

// recLink is a Link that records entry and exit, checks the Start reading
// it receives and passes its own inward. Its async form holds "a slot"
// until the inner future completes.
type recLink struct {
	name    string
	tr      *trace
	stampAt int64 // the reading it passes inward and returns
	gotIn   *policy.Stamp
}

func (l recLink) Run(ctx context.Context, next policy.Next[string]) (string, policy.Stamp, error) {
	l.tr.add("enter " + l.name)
	if l.gotIn != nil {
		*l.gotIn = next.Start
	}
	v, end, err := next.WithStart(l.stampAt).Run(ctx)
	l.tr.add("exit " + l.name)
	if !end.OK() {
		end = policy.Stamp(l.stampAt + 1)
	}
	return l.name + "(" + v + ")", end, err
}

func (l recLink) RunAsync(ctx context.Context, next policy.AsyncNext[string]) *future.Future[string] {
	l.tr.add("enter " + l.name)
	inner := next.Call(ctx)
	pr := future.NewPromise[string]()
	pr.OnCancel(func() { inner.Cancel() })
	inner.OnComplete(func(v string, err error) {
		l.tr.add("exit " + l.name)
		if err != nil {
			pr.Fail(err)
			return
		}
		pr.Complete(l.name + "(" + v + ")")
	})
	return pr.Future()
}

var _ policy.Link[string] = recLink{}

func TestNextCallRunsLinksInOrder(t *testing.T) {
	var tr trace
	links := []policy.Link[string]{
		recLink{name: "a", tr: &tr},
		recLink{name: "b", tr: &tr},
		recLink{name: "c", tr: &tr},
	}
	next := policy.NewNext(links, func(ctx context.Context) (string, error) {
		tr.add("fn")
		return "v", nil
	}, nil)
	v, err := next.Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "a(b(c(v)))", v)
	assert.Equal(t, []string{"enter a", "enter b", "enter c", "fn", "exit c", "exit b", "exit a"}, tr.get())
}

func TestNextFn0AndNoLinks(t *testing.T) {
	calls := 0
	next := policy.NewNext[int](nil, nil, func() (int, error) { calls++; return 7, nil })
	v, err := next.Call(context.Background())
	assert.Equal(t, 7, v)
	assert.NoError(t, err)
	assert.Equal(t, 1, calls)

	// fn takes precedence over fn0 and receives the ctx.
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "ctx")
	next = policy.NewNext[int](nil,
		func(ctx context.Context) (int, error) {
			assert.Equal(t, "ctx", ctx.Value(key{}))
			return 1, nil
		},
		func() (int, error) { t.Fatal("fn0 called although fn is set"); return 0, nil })
	v, _ = next.Call(ctx)
	assert.Equal(t, 1, v)
}

func TestNextIsCallableAgain(t *testing.T) {
	// A retry-like policy calls next twice: each call runs the rest of the
	// chain afresh, from the link after the retry.
	var tr trace
	calls := 0
	retry := policy.Func[string](func(ctx context.Context, next policy.Next[string]) (string, error) {
		if _, err := next.Call(ctx); err == nil {
			return "", errors.New("first attempt should fail")
		}
		return next.Call(ctx)
	})
	links := []policy.Link[string]{
		recLink{name: "outer", tr: &tr},
		policy.Wrap[string](retry),
		recLink{name: "inner", tr: &tr},
	}
	next := policy.NewNext(links, func(ctx context.Context) (string, error) {
		calls++
		tr.add(fmt.Sprint("fn ", calls))
		if calls == 1 {
			return "", errors.New("transient")
		}
		return "ok", nil
	}, nil)

	for round := 1; round <= 2; round++ { // the Next value itself is reusable too
		calls = 0
		tr = trace{}
		v, err := next.Call(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "outer(inner(ok))", v)
		assert.Equal(t, 2, calls)
		assert.Equal(t, []string{
			"enter outer",
			"enter inner", "fn 1", "exit inner",
			"enter inner", "fn 2", "exit inner",
			"exit outer",
		}, tr.get(), "round %d", round)
	}
}

func TestNextErrorsPassThrough(t *testing.T) {
	var tr trace
	boom := errors.New("boom")
	next := policy.NewNext([]policy.Link[string]{recLink{name: "a", tr: &tr}},
		func(context.Context) (string, error) { return "", boom }, nil)
	_, err := next.Call(context.Background())
	assert.Same(t, boom, err)
}

func TestNextStamps(t *testing.T) {
	var gotB, gotC policy.Stamp
	var tr trace
	links := []policy.Link[string]{
		recLink{name: "a", tr: &tr, stampAt: -50}, // readings may be negative
		recLink{name: "b", tr: &tr, stampAt: 10, gotIn: &gotB},
		policy.Wrap[string](policy.Func[string](func(ctx context.Context, next policy.Next[string]) (string, error) {
			assert.False(t, next.Start.OK(), "a wrapped policy's inner stages read the clock themselves")
			return next.Call(ctx)
		})),
		recLink{name: "c", tr: &tr, stampAt: 20, gotIn: &gotC},
	}
	next := policy.NewNext(links, func(context.Context) (string, error) { return "v", nil }, nil)
	assert.False(t, next.Start.OK(), "NewNext carries no reading")
	_, end, _ := next.Run(context.Background())
	assert.Equal(t, policy.Stamp(-50), gotB, "b receives a's reading, negative included")
	assert.Equal(t, policy.NoStamp, gotC, "Wrap clears the reading for the stages inside")
	assert.Equal(t, policy.Stamp(11), end, "b took its own end reading (the wrapped policy returned none) and a passed it up")

	// A wrapped policy returns no end reading, whatever the stages inside took.
	_, end, _ = policy.NewNext([]policy.Link[string]{links[2], links[3]},
		func(context.Context) (string, error) { return "v", nil }, nil).Run(context.Background())
	assert.Equal(t, policy.NoStamp, end)

	n := next.WithStart(5)
	assert.Equal(t, policy.Stamp(5), n.Start)
	assert.Equal(t, policy.NoStamp, n.Fresh().Start)
	assert.Equal(t, policy.Stamp(5), n.Start, "Fresh returns a copy")
	zero := next.WithStart(0)
	assert.True(t, zero.Start.OK(), "a zero reading is present: only NoStamp is absent")

	// Run of the bare function returns no reading.
	_, end, _ = policy.NewNext[string](nil, func(context.Context) (string, error) { return "", nil }, nil).Run(context.Background())
	assert.False(t, end.OK())
}

func TestFuncExecute(t *testing.T) {
	f := policy.Func[int](func(ctx context.Context, next policy.Next[int]) (int, error) {
		v, err := next.Call(ctx)
		return v * 2, err
	})
	var p policy.Policy[int] = f
	v, err := p.Execute(context.Background(), policy.NewNext[int](nil, nil, func() (int, error) { return 21, nil }))
	assert.NoError(t, err)
	assert.Equal(t, 42, v)
}

func TestWrapSync(t *testing.T) {
	var tr trace
	boom := errors.New("boom")
	p := policy.Func[string](func(ctx context.Context, next policy.Next[string]) (string, error) {
		tr.add("policy before")
		v, err := next.Call(ctx)
		tr.add("policy after")
		if err != nil {
			return "", fmt.Errorf("wrapped: %w", err)
		}
		return "p[" + v + "]", nil
	})
	links := []policy.Link[string]{policy.Wrap[string](p), recLink{name: "x", tr: &tr}}

	v, err := policy.NewNext(links, func(context.Context) (string, error) { return "v", nil }, nil).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "p[x(v)]", v)
	assert.Equal(t, []string{"policy before", "enter x", "exit x", "policy after"}, tr.get())

	_, err = policy.NewNext(links, func(context.Context) (string, error) { return "", boom }, nil).Call(context.Background())
	assert.ErrorIs(t, err, boom)
	assert.True(t, strings.HasPrefix(err.Error(), "wrapped: "))
}

func TestErrNilFutureMessage(t *testing.T) {
	assert.Equal(t, "r4c: the function returned a nil future", policy.ErrNilFuture.Error())
}
