package clocktest

import (
	"context"
	"sync"
	"time"

	"github.com/resilience4cata/r4c/policy"
)

// WithDeadline returns a copy of parent that the clock cancels when it
// reaches d, or parent's own deadline if that is earlier; Deadline reports
// the one that applies. Once the clock has reached it (during the Advance or
// Set that passes it, on that goroutine), Err and context.Cause return
// context.DeadlineExceeded, and so do contexts derived from the copy with
// context.WithCancel, WithTimeout and the like. If d is not after Now, the
// copy is done from the start. If parent is done first, the copy is done
// with parent's error.
//
// Until the copy is done, its timer counts in [ManualClock.Pending] and
// [ManualClock.BlockUntil]. cancel releases the timer and makes the copy
// done with context.Canceled; call it as soon as the work ends. Calling
// cancel again, or after the deadline, does nothing.
func (c *ManualClock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	if pd, ok := parent.Deadline(); ok && pd.Before(d) {
		// The parent ends first: the copy reports the earlier deadline,
		// and its own timer at that instant makes it done during the
		// Advance that reaches it, like the parent.
		d = pd
	}
	ctx := &deadlineCtx{parent: parent, deadline: d, done: make(chan struct{})}
	if err := parent.Err(); err != nil {
		ctx.finish(err, context.Cause(parent))
		return ctx, func() {}
	}
	c.mu.Lock()
	expired := !c.now.Before(d)
	c.mu.Unlock()
	if expired {
		ctx.finish(context.DeadlineExceeded, context.DeadlineExceeded)
		return ctx, func() {}
	}
	stopParent := context.AfterFunc(parent, func() { ctx.finish(parent.Err(), context.Cause(parent)) })
	timer := c.AfterFunc(d.Sub(c.Now()), func() {
		ctx.finish(context.DeadlineExceeded, context.DeadlineExceeded)
	})
	ctx.mu.Lock()
	if ctx.err != nil {
		// Done already (the parent, or a clock moved meanwhile): release now.
		ctx.mu.Unlock()
		stopParent()
		timer.Stop()
	} else {
		ctx.stopParent, ctx.timer = stopParent, timer
		ctx.mu.Unlock()
	}
	return ctx, func() { ctx.finish(context.Canceled, context.Canceled) }
}

// deadlineCtx is a context whose deadline is kept by a ManualClock. It
// implements AfterFunc so that the context package propagates its
// cancellation to children without a goroutine.
type deadlineCtx struct {
	parent   context.Context
	deadline time.Time
	done     chan struct{}

	mu         sync.Mutex
	err        error
	cause      error
	funcs      []*afterFunc
	stopParent func() bool  // releases the watch on parent; nil once done
	timer      policy.Timer // the deadline's timer; nil once done
}

type afterFunc struct {
	f    func()
	once sync.Once
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *deadlineCtx) Done() <-chan struct{} {
	c.poll()
	return c.done
}

func (c *deadlineCtx) Err() error {
	c.poll()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// poll finishes c with its parent's error if the parent is done but the
// goroutine that context.AfterFunc starts to tell c so has not run yet: as
// with the context package's own contexts, c is done as soon as its parent
// is. c.mu must not be held.
func (c *deadlineCtx) poll() {
	select {
	case <-c.done:
		return
	default:
	}
	if err := c.parent.Err(); err != nil {
		c.finish(err, context.Cause(c.parent))
	}
}

// Value delegates to the parent, except for the context package's own key
// for finding a cancellable ancestor: hiding it makes context.Cause report
// this context's error rather than an ancestor's cause.
func (c *deadlineCtx) Value(key any) any {
	if key == cancelCtxKey && cancelCtxKey != nil {
		return nil
	}
	return c.parent.Value(key)
}

// AfterFunc arranges for f to run once c is done, on the goroutine that
// finishes c (or at once if c is already done). The context package uses it
// to cancel children without a goroutine per child; context.AfterFunc
// starts its own goroutine for user functions. stop reports whether it
// prevented f from running.
func (c *deadlineCtx) AfterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		a.once.Do(a.f)
		return func() bool { return false }
	}
	c.funcs = append(c.funcs, a)
	c.mu.Unlock()
	return func() bool {
		stopped := false
		a.once.Do(func() { stopped = true })
		if stopped {
			// Forget a, so that a long-lived context whose children come
			// and go does not keep every one of them.
			c.mu.Lock()
			for i, x := range c.funcs {
				if x == a {
					c.funcs = append(c.funcs[:i], c.funcs[i+1:]...)
					break
				}
			}
			c.mu.Unlock()
		}
		return stopped
	}
}

func (c *deadlineCtx) finish(err, cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err, c.cause = err, cause
	funcs, stopParent, timer := c.funcs, c.stopParent, c.timer
	c.funcs, c.stopParent, c.timer = nil, nil, nil
	// Done for whatever reason: release the timer, under c.mu so that a
	// concurrent cancel returns only once Pending has dropped, and before
	// Done is closed, so that whoever sees Done closed sees Pending
	// without it. (The lock order c.mu → clock.mu is safe: the clock
	// fires timers without its lock held.)
	if timer != nil {
		timer.Stop()
	}
	close(c.done)
	c.mu.Unlock()
	// Release the watch on parent outside c.mu: stopping it waits for a
	// watch that is running, and a running watch calls finish.
	if stopParent != nil {
		stopParent()
	}
	for _, a := range funcs {
		a.once.Do(a.f)
	}
}

func (c *deadlineCtx) String() string { return "clocktest.WithDeadline(" + c.deadline.String() + ")" }

// cancelCtxKey is the key the context package looks up to find a context's
// cancellable ancestor. It is unexported there; a probe context records it
// the one time context.Cause asks for it. Cause asks only a context whose Err
// is not nil, so the probe reports itself done.
var cancelCtxKey = func() any {
	var p keyProbe
	_ = context.Cause(&p)
	return p.key
}()

type keyProbe struct {
	context.Context
	key any
}

func (p *keyProbe) Value(key any) any {
	if p.key == nil {
		p.key = key
	}
	return nil
}
func (p *keyProbe) Err() error                  { return context.Canceled } // Cause looks up the key only for a done context
func (p *keyProbe) Done() <-chan struct{}       { return nil }
func (p *keyProbe) Deadline() (time.Time, bool) { return time.Time{}, false }
