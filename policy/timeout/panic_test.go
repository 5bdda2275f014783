package timeout_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/clocktest"
	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// A listener of the Timeout event that panics: the timeout is counted, the
// deadline's timer is gone, and the panic goes on out of the call.
func TestTimeoutListenerPanic(t *testing.T) {
	for _, coop := range []bool{true, false} {
		clk := clocktest.NewManualClock()
		bus := &events.Bus{}
		defer bus.Subscribe(func(e events.Event) {
			if _, ok := e.(events.Timeout); ok {
				panic("listener")
			}
		})()
		to, err := timeout.New(timeout.Config{Timeout: time.Second, Cooperative: coop}, policy.Env{Clock: clk, Events: bus})
		require.NoError(t, err)
		st := timeout.Stage[string](to)
		release := make(chan struct{})
		var got any
		func() {
			defer func() { got = recover() }()
			_, _, _ = st.Run(context.Background(), policy.NewNext[string](nil, func(ctx context.Context) (string, error) {
				if coop {
					clk.Advance(time.Second) // the deadline passes while the work runs
					return "late", nil
				}
				go func() {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					if clk.BlockUntil(ctx, 1) == nil {
						clk.Advance(time.Second)
					}
				}()
				<-release // ignores its ctx: the caller returns at the deadline
				return "late", nil
			}, nil))
		}()
		if !coop {
			close(release)
		}
		assert.Equal(t, "listener", got, "cooperative %v", coop)
		assert.Equal(t, int64(1), timeout.NewHandle(to).Timeouts())
		assert.Zero(t, clk.Pending())
	}
}
