package adaptivelimit

import (
	"context"
	"strconv"
)

// Priority says how important a call is to an adaptive limit. The zero
// value is [PriorityNormal]. Values below zero count as [PriorityLow],
// values above zero as [PriorityHigh].
//
// Under pressure low-priority calls are shed first: a low-priority call is
// admitted only while fewer than max(1, floor(LowPriorityShare*limit))
// calls are in flight (Config.LowPriorityShare, default 0.8), while normal
// and high-priority calls may use every slot. With Config.MaxWait, waiting
// calls get free slots in priority order, high first, and in arrival order
// within a priority.
type Priority int8

// The priorities.
const (
	PriorityLow    Priority = -1
	PriorityNormal Priority = 0
	PriorityHigh   Priority = 1
)

// String returns "low", "normal", "high", or the number for other values.
func (p Priority) String() string {
	switch p {
	case PriorityLow:
		return "low"
	case PriorityNormal:
		return "normal"
	case PriorityHigh:
		return "high"
	}
	return "priority(" + strconv.Itoa(int(p)) + ")"
}

// rank maps p to 0 (low), 1 (normal) or 2 (high).
func (p Priority) rank() int {
	switch {
	case p < 0:
		return 0
	case p > 0:
		return 2
	}
	return 1
}

type priorityKey struct{}

// WithPriority returns a copy of ctx that marks the calls made with it as
// priority p. It allocates, like context.WithValue; make it once per
// request, not per attempt.
func WithPriority(ctx context.Context, p Priority) context.Context {
	return context.WithValue(ctx, priorityKey{}, p)
}

// PriorityFrom returns the priority WithPriority put in ctx, or
// [PriorityNormal]. An adaptive limit reads it only when the calls in
// flight come near the limit, so marking calls costs nothing on the
// ordinary path.
func PriorityFrom(ctx context.Context) Priority {
	if p, ok := ctx.Value(priorityKey{}).(Priority); ok {
		return p
	}
	return PriorityNormal
}
