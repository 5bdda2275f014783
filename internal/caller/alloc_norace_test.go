//go:build !race

// The race detector allocates: allocation tests build without it, and CI
// runs them in a step of their own (go test -run Alloc).

package caller

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPCAllocatesNothing(t *testing.T) {
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = PC() }))
}
