package events

import (
	"context"
	"sync"
	"sync/atomic"
)

// Buffered moves a slow listener off the publishing goroutine: Listen queues
// each event in a buffer of fixed size and returns at once, and one goroutine
// of Buffered's own hands the events to the listener in order. When the
// buffer is full the event is dropped and counted, so a slow listener never
// blocks a call.
//
// Buffered owns a goroutine: call Close when done with it. It is safe for
// concurrent use.
type Buffered struct {
	fn      func(context.Context, Event)
	ch      chan queued
	dropped atomic.Uint64
	once    sync.Once
	mu      sync.RWMutex // held for reading while sending; Close takes it to close ch
	closed  bool
	done    chan struct{}
}

// NewBuffered starts a goroutine that calls fn for each event passed to
// Listen, in the order they were queued, with room for size waiting events
// (a size below 1 means 1). fn runs on that goroutine only, one event at a
// time.
func NewBuffered(size int, fn func(Event)) *Buffered {
	return NewBufferedContext(size, func(_ context.Context, e Event) { fn(e) })
}

// NewBufferedContext is [NewBuffered] for a listener that takes the call's
// ctx beside each event (see [Bus.SubscribeContext]): pass
// [Buffered.ListenContext] to Bus.SubscribeContext. The ctx travels with
// the event through the buffer; by the time fn runs the call may have
// ended, so fn should only read values from it (a trace id, a span to add
// an event to), never wait on it.
func NewBufferedContext(size int, fn func(context.Context, Event)) *Buffered {
	if size < 1 {
		size = 1
	}
	b := &Buffered{fn: fn, ch: make(chan queued, size), done: make(chan struct{})}
	go b.run()
	return b
}

// queued is an event waiting in the buffer, with its call's ctx.
type queued struct {
	ctx context.Context
	e   Event
}

func (b *Buffered) run() {
	defer close(b.done)
	for q := range b.ch {
		b.fn(q.ctx, q.e)
	}
}

// Listen queues e for the listener, or drops (and counts) it if the buffer
// is full or Buffered is closed. It never blocks and allocates nothing.
// Pass it to [Bus.Subscribe]. The listener gets context.Background().
func (b *Buffered) Listen(e Event) {
	b.ListenContext(context.Background(), e)
}

// ListenContext queues e with its call's ctx, like [Buffered.Listen]. Pass
// it to [Bus.SubscribeContext].
func (b *Buffered) ListenContext(ctx context.Context, e Event) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		b.dropped.Add(1)
		return
	}
	select {
	case b.ch <- queued{ctx, e}:
	default:
		b.dropped.Add(1)
	}
}

// Dropped returns how many events were dropped so far.
func (b *Buffered) Dropped() uint64 { return b.dropped.Load() }

// Close stops accepting events, waits until the listener has handled every
// queued one, and ends the goroutine. Close is idempotent: every call waits
// for the goroutine to end. Do not call it from the listener, which would
// wait for itself.
func (b *Buffered) Close() {
	b.once.Do(func() {
		b.mu.Lock()
		b.closed = true
		close(b.ch)
		b.mu.Unlock()
	})
	<-b.done
}
