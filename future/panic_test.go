package future_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/future"
)

// complete calls fn and returns what it panicked with (nil if it did not).
func panicOf(fn func()) (p any) {
	defer func() { p = recover() }()
	fn()
	return nil
}

// Issue 10, case 1: a panicking OnComplete function must not stop the ones
// registered after it; the first panic goes on out of Complete, after all
// of them ran, with Done closed.
func TestOnCompletePanicLetsEveryCallbackRun(t *testing.T) {
	for _, how := range []string{"complete", "fail", "cancel"} {
		t.Run(how, func(t *testing.T) {
			p := future.NewPromise[int]()
			f := p.Future()
			var ran []int
			cancelled := 0
			p.OnCancel(func() { panic("hook") })
			p.OnCancel(func() { cancelled++ })
			f.OnComplete(func(int, error) { ran = append(ran, 1); panic("first") })
			f.OnComplete(func(int, error) { ran = append(ran, 2) })
			f.OnComplete(func(int, error) { ran = append(ran, 3); panic("second") })
			f.OnComplete(func(int, error) { ran = append(ran, 4) })
			var got any
			switch how {
			case "complete":
				got = panicOf(func() { p.Complete(7) })
			case "fail":
				got = panicOf(func() { p.Fail(errBoom) })
			case "cancel":
				got = panicOf(func() { f.Cancel() })
			}
			assert.Equal(t, []int{1, 2, 3, 4}, ran, "every callback ran, in order")
			if how == "cancel" {
				assert.Equal(t, 1, cancelled, "every OnCancel function ran")
				assert.Equal(t, "hook", got, "the first panic goes on")
			} else {
				assert.Zero(t, cancelled)
				assert.Equal(t, "first", got, "the first panic goes on")
			}
			require.True(t, isDone(f), "Done is closed even though a callback panicked")
			v, err := f.Get(context.Background())
			switch how {
			case "complete":
				assert.NoError(t, err)
				assert.Equal(t, 7, v)
			case "fail":
				assert.Same(t, errBoom, err)
			case "cancel":
				assert.ErrorIs(t, err, future.ErrCancelled)
			}
			assert.False(t, p.Complete(8), "still completed once")
		})
	}
}

func TestOnCompleteAfterCompletionPanicsAtOnce(t *testing.T) {
	f := future.Completed(1)
	got := panicOf(func() { f.OnComplete(func(int, error) { panic("late") }) })
	assert.Equal(t, "late", got)
	ran := false
	f.OnComplete(func(int, error) { ran = true })
	assert.True(t, ran)
}

// A callback that calls runtime.Goexit cannot be stopped, but the ones after
// it still run (in its deferred call) before the goroutine exits.
func TestOnCompleteGoexitLetsTheOthersRun(t *testing.T) {
	p := future.NewPromise[int]()
	var ran []int
	p.Future().OnComplete(func(int, error) { ran = append(ran, 1); runtime.Goexit() })
	p.Future().OnComplete(func(int, error) { ran = append(ran, 2) })
	p.Future().OnComplete(func(int, error) { ran = append(ran, 3); panic("after goexit") })
	p.Future().OnComplete(func(int, error) { ran = append(ran, 4) })
	var wg sync.WaitGroup
	wg.Add(1)
	var got any
	go func() {
		defer wg.Done()
		defer func() { got = recover() }()
		p.Complete(1)
	}()
	wg.Wait()
	assert.Equal(t, []int{1, 2, 3, 4}, ran)
	assert.Equal(t, "after goexit", got, "a panic after a Goexit goes on")
	assert.True(t, isDone(p.Future()))

	p = future.NewPromise[int]()
	ran = nil
	p.Future().OnComplete(func(int, error) { ran = append(ran, 1); runtime.Goexit() })
	p.Future().OnComplete(func(int, error) { ran = append(ran, 2) })
	exited := true
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.Complete(1)
		exited = false
	}()
	wg.Wait()
	assert.Equal(t, []int{1, 2}, ran)
	assert.True(t, exited, "the Goexit goes on")
}

func TestOnCompletePanicValueIsKept(t *testing.T) {
	p := future.NewPromise[int]()
	sentinel := errors.New("sentinel")
	p.Future().OnComplete(func(int, error) { panic(sentinel) })
	got := panicOf(func() { p.Complete(1) })
	assert.Same(t, sentinel, got)
}
