package eventcount_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/internal/eventcount"
)

func TestKeyOf(t *testing.T) {
	assert.Equal(t, eventcount.CallKey{Pipeline: "p", Outcome: events.OutcomeSuccess},
		eventcount.KeyOf(events.Call{Pipeline: "p", Outcome: events.OutcomeSuccess, RejectedBy: "ignored"}))
	assert.Equal(t, eventcount.CallKey{Pipeline: "p", Outcome: events.OutcomeRejected, RejectedBy: "bulkhead"},
		eventcount.KeyOf(events.Call{Pipeline: "p", Outcome: events.OutcomeRejected, RejectedBy: "bulkhead"}))
	assert.Equal(t, "other",
		eventcount.KeyOf(events.Call{Pipeline: "p", Outcome: events.OutcomeRejected}).RejectedBy)
}

// Concurrent first uses of the same keys make each value exactly once, and
// every caller gets that value.
func TestCacheMakesEachValueOnce(t *testing.T) {
	var made atomic.Int64
	c := eventcount.Cache[string, *int]{New: func(k string) *int { made.Add(1); n := len(k); return &n }}
	keys := []string{"a", "bb", "ccc", "dddd"}
	var wg sync.WaitGroup
	got := make([][]*int, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				for _, k := range keys {
					got[g] = append(got[g], c.Get(k))
				}
			}
		}()
	}
	wg.Wait()
	assert.EqualValues(t, len(keys), made.Load())
	for g := range got {
		for i, v := range got[g] {
			require.Same(t, c.Get(keys[i%len(keys)]), v)
		}
	}
	seen := map[string]int{}
	c.Each(func(k string, v *int) { seen[k] = *v })
	assert.Equal(t, map[string]int{"a": 1, "bb": 2, "ccc": 3, "dddd": 4}, seen)
}
