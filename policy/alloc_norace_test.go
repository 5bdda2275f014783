//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package policy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/policy"
)

func TestNextAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	ch := policy.NewChain(chainLinks...)
	allocs := testing.AllocsPerRun(1000, func() {
		v, err := ch.Next(fnCtx, nil).Call(ctx)
		if v != 4 || err != nil {
			t.Fatalf("got %d, %v", v, err)
		}
	})
	assert.Zero(t, allocs, "Next.Call through links, a wrapped policy and fn")

	allocs = testing.AllocsPerRun(1000, func() {
		_, _, _ = ch.Next(nil, fnBare).Run(ctx)
	})
	assert.Zero(t, allocs, "Next.Run with fn0")
}

func TestClassifiersAllocateNothing(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	list := []error{policy.ErrCallTimeout, policy.ErrBulkheadFull}
	rejected := &policy.RejectedError{Kind: "k", Instance: "i", Err: policy.ErrBulkheadFull}
	allocs := testing.AllocsPerRun(1000, func() {
		_ = policy.Matches(errBoom, list, nil)
		_ = policy.Matches(rejected, list, nil)
		_ = policy.CallerCancelled(cancelled, context.Canceled)
		_ = errors.Is(rejected, policy.ErrRejected)
	})
	assert.Zero(t, allocs)
}
