package events

import (
	"context"
	"sync"
)

// SubscribeContext adds fn as a listener that also receives the context of
// the call that caused each event, and returns a function that removes it.
// It is [Bus.Subscribe] for listeners that need what a call's ctx carries:
// a trace span to add an event to, a trace id to log, a request id.
//
// The ctx is the caller's (the one given to ExecuteContext, or
// context.Background() for Execute), as the publishing policy saw it; an
// event that no call caused (a breaker forced open through its handle)
// comes with context.Background(). Events never hold a ctx themselves:
// the bus passes it beside the event, so a policy's preallocated event
// stays allocation-free to publish. fn must not keep ctx beyond the
// call's end unless it only reads values from it.
//
// Everything [Bus.Subscribe] says of fn holds here too.
func (b *Bus) SubscribeContext(fn func(ctx context.Context, e Event)) (stop func()) {
	return b.add(&subscriber{fnc: fn})
}

// PublishContext is [Bus.Publish] for an event caused by a call made with
// ctx: listeners added with [Bus.SubscribeContext] receive ctx, the others
// the event alone. A nil ctx is passed on as context.Background(). It
// allocates nothing.
func (b *Bus) PublishContext(ctx context.Context, e Event) {
	if b == nil {
		return
	}
	subs := b.subs.Load()
	if subs == nil {
		return
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var first any
	panicked := false
	for _, s := range *subs {
		if p, ok := deliver(ctx, s, e); !ok && !panicked {
			first, panicked = p, true
		}
	}
	if panicked {
		panic(first)
	}
}

// add appends s to the subscribers and returns the function that removes it.
func (b *Bus) add(s *subscriber) (stop func()) {
	b.mu.Lock()
	old := b.subs.Load()
	var next []*subscriber
	if old != nil {
		next = append(next, *old...)
	}
	next = append(next, s)
	b.subs.Store(&next)
	b.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { b.remove(s) }) }
}
