package timeout_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/events"
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/timeout"
)

// A call in flight keeps the deadline it started with; the next call gets
// the new timeout, and the error names it.
func TestSetTimeoutFromTheNextCall(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second, Cooperative: true})
	first := make(chan error, 1)
	go func() {
		first <- f.t.Run(context.Background(), func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})
	}()
	f.blockUntil(t, 1)
	require.NoError(t, f.h.SetTimeout(3*time.Second))
	f.clk.Advance(time.Second)
	var te *timeout.CallTimeoutError
	require.ErrorAs(t, recv(t, first), &te, "the call in flight times out at its own 1s")

	second := make(chan error, 1)
	go func() {
		second <- f.t.Run(context.Background(), func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})
	}()
	f.blockUntil(t, 1)
	f.clk.Advance(3*time.Second - time.Nanosecond)
	select {
	case err := <-second:
		t.Fatalf("timed out early: %v", err)
	default:
	}
	f.clk.Advance(time.Nanosecond)
	err := recv(t, second)
	require.ErrorAs(t, err, &te)
	assert.Equal(t, 3*time.Second, te.Duration())
	assert.Equal(t, "r4c: call timed out after 3s (timeout search)", err.Error())
	assert.Equal(t, 3*time.Second, f.h.Timeout())

	var cc []events.ConfigChanged
	for _, e := range f.rec.All() {
		if c, ok := e.(events.ConfigChanged); ok {
			cc = append(cc, c)
		}
	}
	assert.Equal(t, []events.ConfigChanged{{Policy: "timeout", Instance: "search",
		Changes: []events.KeyChange{{Key: "timeout", Old: "1s", New: "3s"}}}}, cc)
}

func TestTimeoutReconfigureRefuses(t *testing.T) {
	f := newFixture(t, timeout.Config{Timeout: time.Second})
	var fe *policy.FieldError
	require.True(t, errors.As(f.h.SetTimeout(0), &fe))
	assert.Equal(t, policy.ClassDuration, fe.Class)
	c := f.h.Config()
	c.Cooperative = true
	c.Timeout = time.Minute
	require.True(t, errors.As(f.h.Reconfigure(c), &fe))
	assert.Equal(t, "cooperative", fe.Key)
	assert.Equal(t, policy.ClassNotLive, fe.Class)
	assert.Equal(t, time.Second, f.h.Timeout())
}
