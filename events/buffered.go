package events

import (
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
	fn      func(Event)
	ch      chan Event
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
	if size < 1 {
		size = 1
	}
	b := &Buffered{fn: fn, ch: make(chan Event, size), done: make(chan struct{})}
	go b.run()
	return b
}

func (b *Buffered) run() {
	defer close(b.done)
	for e := range b.ch {
		b.fn(e)
	}
}

// Listen queues e for the listener, or drops (and counts) it if the buffer
// is full or Buffered is closed. It never blocks and allocates nothing.
// Pass it to [Bus.Subscribe].
func (b *Buffered) Listen(e Event) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		b.dropped.Add(1)
		return
	}
	select {
	case b.ch <- e:
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
