package benbjohnson

import (
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// Why not the mock's own WithDeadline (v1.3.5): its context reads its error
// without a lock (a data race with the timer that sets it), context.Cause
// of it reports the parent's cause (nil) instead of DeadlineExceeded, and it
// starts a goroutine per context whose parent can be cancelled. This one
// has none of those.

// withDeadline is [Clock.WithDeadline] on c.
func withDeadline(c clock.Clock, parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	if pd, ok := parent.Deadline(); ok && pd.Before(d) {
		// The parent ends first: report its deadline, and end with it on
		// this clock too (the parent may be a deadline of another clock).
		d = pd
	}
	ctx := &deadlineCtx{clock: c, parent: parent, deadline: d, done: make(chan struct{})}
	if parent.Err() != nil {
		ctx.finish(nil, true)
		return ctx, func() {}
	}
	wait := d.Sub(c.Now())
	if wait <= 0 {
		ctx.finish(context.DeadlineExceeded, false)
		return ctx, func() {}
	}
	stopParent := context.AfterFunc(parent, func() { ctx.finish(nil, true) })
	t := c.AfterFunc(wait, func() { ctx.finish(context.DeadlineExceeded, false) })
	ctx.mu.Lock()
	if ctx.err != nil {
		// Done already (parent ended, or the clock moved meanwhile).
		ctx.mu.Unlock()
		stopParent()
		t.Stop()
	} else {
		ctx.stopParent, ctx.timer = stopParent, t
		ctx.mu.Unlock()
	}
	return ctx, func() { ctx.finish(context.Canceled, false) }
}

// deadlineCtx is a context whose deadline is kept by a benbjohnson clock.
// It implements AfterFunc, so that the context package cancels the contexts
// derived from it without a goroutine each.
type deadlineCtx struct {
	clock    clock.Clock
	parent   context.Context
	deadline time.Time
	done     chan struct{}

	mu         sync.Mutex
	err        error
	byParent   bool         // ended because parent did: Cause reaches parent's cause
	funcs      []*afterFunc // run once done
	stopParent func() bool  // releases the watch on parent; nil once done
	timer      *clock.Timer // the deadline's timer; nil once done
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

// poll ends c if its parent is done or its clock has reached the deadline
// but the functions that say so have not run yet (the mock runs AfterFunc
// functions on a goroutine of their own). c.mu must not be held.
func (c *deadlineCtx) poll() {
	select {
	case <-c.done:
		return
	default:
	}
	switch {
	case c.parent.Err() != nil:
		c.finish(nil, true)
	case !c.clock.Now().Before(c.deadline):
		c.finish(context.DeadlineExceeded, false)
	}
}

// Value delegates to the parent, except for the context package's key for
// a cancellable ancestor: hiding it makes context.Cause report this
// context's own error (DeadlineExceeded, Canceled) rather than an
// ancestor's cause. Once c ended because its parent did, the key reaches
// the parent again, so that Cause reports the parent's cause.
func (c *deadlineCtx) Value(key any) any {
	if key == cancelCtxKey && cancelCtxKey != nil {
		c.mu.Lock()
		byParent := c.byParent
		c.mu.Unlock()
		if !byParent {
			return nil
		}
	}
	return c.parent.Value(key)
}

// AfterFunc arranges for f to run once c is done, on the goroutine that
// ends c (at once if c is done already). The context package uses it for
// the contexts derived from c. stop reports whether it kept f from running.
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

// finish ends c with err, or with its parent's error when byParent, unless
// it has ended already. It releases the timer and the watch on the parent
// and runs the functions of AfterFunc.
func (c *deadlineCtx) finish(err error, byParent bool) {
	if byParent {
		err = c.parent.Err()
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err, c.byParent = err, byParent
	funcs, stopParent, t := c.funcs, c.stopParent, c.timer
	c.funcs, c.stopParent, c.timer = nil, nil, nil
	close(c.done)
	c.mu.Unlock()
	if t != nil {
		t.Stop()
	}
	if stopParent != nil {
		stopParent()
	}
	for _, a := range funcs {
		a.once.Do(a.f)
	}
}

func (c *deadlineCtx) String() string {
	return "benbjohnson.WithDeadline(" + c.deadline.String() + ")"
}

// cancelCtxKey is the key the context package looks up to find a context's
// cancellable ancestor; it is unexported there. A probe records it the one
// time context.Cause asks for it (Cause asks only a context that is done).
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
func (p *keyProbe) Err() error                  { return context.Canceled }
func (p *keyProbe) Done() <-chan struct{}       { return nil }
func (p *keyProbe) Deadline() (time.Time, bool) { return time.Time{}, false }
