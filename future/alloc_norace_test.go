//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package future_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/future"
)

func TestGetAndDoneAllocateNothing(t *testing.T) {
	ctx := context.Background()
	f := future.Completed(1)
	allocs := testing.AllocsPerRun(1000, func() {
		<-f.Done()
		if v, err := f.Get(ctx); v != 1 || err != nil {
			t.Fatal(v, err)
		}
		_ = f.Cancel()
	})
	assert.Zero(t, allocs)
}
