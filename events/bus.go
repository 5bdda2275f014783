package events

import (
	"context"
	"sync"
	"sync/atomic"
)

// Bus delivers events to its subscribers. The zero value is ready to use, and
// a nil *Bus is a bus nobody listens to. A Bus is safe for concurrent use.
//
// Publishers check [Bus.Active] (one atomic load) before building an event,
// so an unobserved bus costs nothing more.
type Bus struct {
	mu   sync.Mutex                    // serialises Subscribe and stop
	subs atomic.Pointer[[]*subscriber] // copy-on-write; nil or empty: nobody listens
	obs  atomic.Pointer[[]*observer]   // copy-on-write call observers; nil: none
}

// subscriber is one listener: fn, or fnc when it takes the call's ctx.
type subscriber struct {
	fn  func(Event)
	fnc func(context.Context, Event)
}

// Subscribe adds fn as a listener and returns a function that removes it.
// Calling stop more than once is harmless, and stop removes only this
// subscription (the same fn subscribed twice is called twice). fn runs on
// the publishing goroutine; it must be quick and must not block (see
// [NewBuffered]). fn may subscribe or stop: no lock is held while it runs.
// A panic in fn does not stop the delivery: the other subscribers get the
// event, then the first panic goes on out of the publishing call. Subscribe and stop
// allocate (the list of subscribers is copied on write), Publish does not.
// Subscribe needs a non-nil Bus.
func (b *Bus) Subscribe(fn func(Event)) (stop func()) {
	return b.add(&subscriber{fn: fn})
}

func (b *Bus) remove(s *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	old := b.subs.Load()
	if old == nil {
		return
	}
	next := make([]*subscriber, 0, len(*old))
	for _, x := range *old {
		if x != s {
			next = append(next, x)
		}
	}
	if len(next) == 0 {
		b.subs.Store(nil)
		return
	}
	b.subs.Store(&next)
}

// Active reports whether anybody listens. It costs one atomic load and
// allocates nothing; a nil Bus is never active.
func (b *Bus) Active() bool {
	return b != nil && b.subs.Load() != nil
}

// Publish delivers e to every subscriber present when it starts, in
// subscription order, on the calling goroutine, and returns once they all
// have. A subscriber added during the delivery gets the next event; one
// stopped during it may still get this one. Publishing to a nil Bus or one
// without subscribers does nothing. Build e only after Active returned
// true. Publish allocates nothing. If a subscriber panics, the ones after
// it still get e, and the first panic goes on once they all have.
// Listeners added with [Bus.SubscribeContext] receive
// context.Background(); policies publish with [Bus.PublishContext] and the
// call's ctx.
func (b *Bus) Publish(e Event) {
	b.PublishContext(context.Background(), e)
}

// deliver calls s with ctx and e and reports whether it returned; if it
// panicked, deliver returns the panic's value. A runtime.Goexit in s goes
// on.
func deliver(ctx context.Context, s *subscriber, e Event) (p any, ok bool) {
	defer func() {
		if !ok {
			p = recover()
		}
	}()
	if s.fnc != nil {
		s.fnc(ctx, e)
	} else {
		s.fn(e)
	}
	return nil, true
}
