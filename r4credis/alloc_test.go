//go:build !race

package r4credis_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/ratelimit"
)

// A call served from a lease allocates nothing: no round trip, no
// deadline, no error.
func TestAllocLeasedCall(t *testing.T) {
	s := needServer(t)
	l := newLimiter(t, ratelimit.Config{Limit: 1_000_000, Period: time.Second, Lease: 1000, LeaseFor: time.Minute,
		Store: newStore(t, s.client(t))}, policy.Env{Instance: uniq(t)})
	require.True(t, l.Allow()) // takes the lease
	allocs := testing.AllocsPerRun(500, func() {
		if !l.Allow() {
			t.Fatal("refused")
		}
	})
	assert.Zero(t, allocs)
	assert.Zero(t, l.Handle().Snapshot().StoreFailures)
}
