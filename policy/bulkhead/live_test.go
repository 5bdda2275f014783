package bulkhead_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/bulkhead"
)

// A lower size interrupts nothing: new calls are rejected until the calls
// in flight are below it, and from then on no more than it run.
func TestSetMaxConcurrentLowerRejectsUntilEnoughEnd(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 3})
	for range 3 {
		require.True(t, f.b.TryAcquire())
	}
	require.NoError(t, f.h.SetMaxConcurrent(1))
	assert.Equal(t, 3, f.h.InFlight(), "nothing interrupted")
	assert.False(t, f.b.TryAcquire())
	f.b.Release()
	assert.False(t, f.b.TryAcquire(), "2 in flight, size 1")
	f.b.Release()
	assert.False(t, f.b.TryAcquire(), "1 in flight, size 1")
	f.b.Release()
	assert.True(t, f.b.TryAcquire(), "the exact moment the last one ended")
	assert.False(t, f.b.TryAcquire())
	err := f.b.Acquire(context.Background())
	assert.EqualError(t, err, "r4c: bulkhead full: 1 calls in flight (bulkhead db)")
	f.b.Release()

	got := f.rec.All()
	var cc []events.ConfigChanged
	for _, e := range got {
		if c, ok := e.(events.ConfigChanged); ok {
			cc = append(cc, c)
		}
	}
	require.Len(t, cc, 1)
	assert.Equal(t, events.ConfigChanged{Policy: "bulkhead", Instance: "db",
		Changes: []events.KeyChange{{Key: "maxConcurrent", Old: "3", New: "1"}}}, cc[0])
	assert.Equal(t, 1, f.h.Config().MaxConcurrent)
}

// A call that read the old size just before a setter lowered it does not
// take a slot on it after the setter returned: its CAS fails, and it reads
// again. (Without that, the handle would report more calls in flight than
// the size for a call that began after the change.)
func TestSetMaxConcurrentLowerFailsAnAcquireThatReadTheOldSize(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 2})
	require.True(t, f.b.TryAcquire())
	took, read := bulkhead.StaleCAS(f.b, func() { require.NoError(t, f.h.SetMaxConcurrent(1)) })
	assert.Equal(t, int64(2), read, "the acquire read the old size")
	assert.False(t, took, "its CAS fails once the setter has returned")
	assert.Equal(t, 1, f.h.InFlight())
	assert.False(t, f.b.TryAcquire(), "reading again, it sees the new size")
	f.b.Release()
	assert.Equal(t, 0, f.h.InFlight())

	// A size that did not change moves nothing: the CAS takes its slot.
	took, _ = bulkhead.StaleCAS(f.b, func() {})
	assert.True(t, took)
	f.b.Release()
}

// A larger size goes first to the calls waiting, in order, at once.
func TestSetMaxConcurrentHigherAdmitsTheWaiters(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 1, MaxWait: time.Minute})
	require.True(t, f.b.TryAcquire())
	got := make(chan error, 2)
	for range 2 {
		go func() { got <- f.b.Acquire(context.Background()) }()
	}
	f.blockUntil(t, 2) // both wait on their timers
	require.Equal(t, 2, f.h.Waiting())
	require.NoError(t, f.h.SetMaxConcurrent(3))
	require.NoError(t, recv(t, got))
	require.NoError(t, recv(t, got))
	assert.Equal(t, 3, f.h.InFlight())
	assert.Equal(t, 0, f.h.Waiting())
	for range 3 {
		f.b.Release()
	}
}

// Lowered while calls wait: a call that ends frees its slot instead of
// handing it over until the calls in flight are below the new size.
func TestSetMaxConcurrentLowerWithWaiters(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 2, MaxWait: time.Minute})
	require.True(t, f.b.TryAcquire())
	require.True(t, f.b.TryAcquire())
	got := make(chan error, 1)
	go func() { got <- f.b.Acquire(context.Background()) }()
	f.blockUntil(t, 1)
	require.NoError(t, f.h.SetMaxConcurrent(1))
	f.b.Release()
	assert.Equal(t, 1, f.h.InFlight(), "freed, not handed over")
	assert.Equal(t, 1, f.h.Waiting())
	f.b.Release()
	require.NoError(t, recv(t, got), "handed over once below the size")
	assert.Equal(t, 1, f.h.InFlight())
	f.b.Release()
	assert.Equal(t, 0, f.h.InFlight())
}

func TestBulkheadReconfigureRefuses(t *testing.T) {
	f := newFixture(t, bulkhead.Config{MaxConcurrent: 2})
	var fe *policy.FieldError
	require.True(t, errors.As(f.h.SetMaxConcurrent(0), &fe))
	assert.Equal(t, policy.FieldError{Key: "maxConcurrent", Value: "0", Rule: "must be at least 1", Class: policy.ClassBound}, *fe)
	c := f.h.Config()
	c.MaxWait = time.Second
	c.MaxConcurrent = 5
	require.True(t, errors.As(f.h.Reconfigure(c), &fe))
	assert.Equal(t, "maxWait", fe.Key)
	assert.Equal(t, policy.ClassNotLive, fe.Class)
	assert.Equal(t, 2, f.b.MaxConcurrent(), "nothing of the change applied")
	assert.Empty(t, f.rec.All())
}

// Random sizes set while goroutines take and release slots: no slot is
// lost or counted twice, and once the calls in flight at the last change
// have ended, no more than the last size are ever in flight.
func TestSetMaxConcurrentProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		f := newFixture(t, bulkhead.Config{MaxConcurrent: rapid.IntRange(1, 8).Draw(rt, "initial")})
		sizes := rapid.SliceOfN(rapid.IntRange(1, 8), 1, 20).Draw(rt, "sizes")
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var mu sync.Mutex
		final := -1 // the last size, once set
		drained := false
		overs := 0
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					// Only a call that began after the drain is held to the
					// last size: one admitted under an older, larger size
					// may read the calls in flight before the drain and
					// reach the check after it.
					mu.Lock()
					after, fin := drained, final
					mu.Unlock()
					if f.b.TryAcquire() {
						if n := f.h.InFlight(); after && n > fin {
							mu.Lock()
							overs++
							mu.Unlock()
						}
						f.b.Release()
					}
				}
			}()
		}
		for _, s := range sizes {
			require.NoError(rt, f.h.SetMaxConcurrent(s))
		}
		mu.Lock()
		final = sizes[len(sizes)-1]
		mu.Unlock()
		// Every call in flight at the last change ends within a few
		// iterations; from then on the size holds.
		deadline := time.Now().Add(5 * time.Second)
		for f.h.InFlight() > final && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		mu.Lock()
		drained = true
		mu.Unlock()
		for range 1000 {
			if n := f.h.InFlight(); n > final {
				rt.Fatalf("%d in flight after the drain, size %d", n, final)
			}
		}
		close(stop)
		wg.Wait()
		assert.Zero(rt, overs)
		assert.Equal(rt, 0, f.h.InFlight(), "no slot lost or counted twice")
		for range final {
			require.True(rt, f.b.TryAcquire())
		}
		assert.False(rt, f.b.TryAcquire())
	})
}
