package policy_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resilience4cata/r4c/future"
	"github.com/resilience4cata/r4c/policy"
)

var errCustom = errors.New("custom: refused")

func TestRejectedError(t *testing.T) {
	e := &policy.RejectedError{Kind: "bulkhead", Instance: "db", Err: errCustom}
	assert.Equal(t, "r4c: bulkhead db rejected the call: custom: refused", e.Error())
	assert.Equal(t, "db", e.InstanceID())
	assert.Same(t, errCustom, errors.Unwrap(e))

	assert.ErrorIs(t, e, policy.ErrRejected)
	assert.ErrorIs(t, e, errCustom, "the policy's own sentinel, through Unwrap")
	assert.True(t, e.Is(policy.ErrRejected))
	assert.False(t, e.Is(errCustom), "Is is shallow: it leaves Err to Unwrap")
	assert.NotErrorIs(t, e, policy.ErrCallTimeout)

	wrapped := fmt.Errorf("search: %w", e)
	assert.ErrorIs(t, wrapped, policy.ErrRejected)
	var got *policy.RejectedError
	require.ErrorAs(t, wrapped, &got)
	assert.Same(t, e, got)
	assert.Equal(t, "db", got.InstanceID())

	bare := &policy.RejectedError{Kind: "custom", Instance: "x"}
	assert.Equal(t, "r4c: custom x rejected the call", bare.Error())
	assert.Nil(t, bare.Unwrap())
	assert.ErrorIs(t, bare, policy.ErrRejected)
}

func TestSentinelMessages(t *testing.T) {
	for err, msg := range map[error]string{
		policy.ErrRejected:     "r4c: rejected",
		policy.ErrCallTimeout:  "r4c: call timed out",
		policy.ErrBulkheadFull: "r4c: bulkhead full",
		future.ErrCancelled:    "r4c: future cancelled",
	} {
		assert.Equal(t, msg, err.Error())
	}
	assert.NotErrorIs(t, policy.ErrCallTimeout, policy.ErrRejected, "a timeout is not a rejection: fn was called")
	assert.NotErrorIs(t, policy.ErrBulkheadFull, policy.ErrRejected, "the bare sentinel is only the reason")
}

func TestFieldError(t *testing.T) {
	e := &policy.FieldError{Key: "maxLimit", Value: policy.Int(0), Rule: "must be at least 1", Class: policy.ClassBound}
	assert.Equal(t, "maxLimit=0: must be at least 1", e.Error())
	var got *policy.FieldError
	require.ErrorAs(t, fmt.Errorf("config: %w", e), &got)
	assert.Equal(t, policy.ClassBound, got.Class)

	classes := []policy.Class{policy.ClassRange, policy.ClassBound, policy.ClassOrder, policy.ClassDuration, policy.ClassCombination}
	seen := map[policy.Class]bool{}
	for _, c := range classes {
		assert.False(t, seen[c], "class %d is used twice", c)
		seen[c] = true
	}
}

func TestValueFormatters(t *testing.T) {
	assert.Equal(t, "-3", policy.Int(-3))
	assert.Equal(t, "0", policy.Int(0))
	assert.Equal(t, "1.5", policy.Float(1.5))
	assert.Equal(t, "0.1", policy.Float(0.1))
	assert.Equal(t, "1e+21", policy.Float(1e21))
	assert.Equal(t, "NaN", policy.Float(math.NaN()))
	assert.Equal(t, "-1s", policy.Dur(-time.Second))
	assert.Equal(t, "1m30s", policy.Dur(90*time.Second))
	assert.Equal(t, "0s", policy.Dur(0))
}

func TestMatches(t *testing.T) {
	other := errors.New("other")
	wrapped := fmt.Errorf("call: %w", policy.ErrCallTimeout)
	isOther := func(err error) bool { return err == other }
	list := []error{policy.ErrCallTimeout, policy.ErrBulkheadFull}

	for _, tc := range []struct {
		name string
		err  error
		errs []error
		pred func(error) bool
		want bool
	}{
		{"nil err matches nothing", nil, list, func(error) bool { return true }, false},
		{"listed sentinel", policy.ErrBulkheadFull, list, nil, true},
		{"wrapped sentinel", wrapped, list, nil, true},
		{"joined", errors.Join(other, policy.ErrBulkheadFull), list, nil, true},
		{"rejection by its own sentinel", &policy.RejectedError{Err: policy.ErrBulkheadFull}, list, nil, true},
		{"unlisted, no predicate", other, list, nil, false},
		{"unlisted, predicate says yes", other, list, isOther, true},
		{"unlisted, predicate says no", errCustom, list, isOther, false},
		{"empty list, predicate", other, nil, isOther, true},
		{"empty list, no predicate", other, nil, nil, false},
		{"ErrRejected family", &policy.RejectedError{}, []error{policy.ErrRejected}, nil, true},
	} {
		assert.Equal(t, tc.want, policy.Matches(tc.err, tc.errs, tc.pred), tc.name)
	}

	// The predicate is not consulted once the list matched, nor for nil.
	called := false
	pred := func(error) bool { called = true; return false }
	policy.Matches(policy.ErrCallTimeout, list, pred)
	policy.Matches(nil, list, pred)
	assert.False(t, called)
}

func TestCallerCancelled(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()

	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"nil err", cancelled, nil, false},
		{"ctx live, Canceled from elsewhere", live, context.Canceled, false},
		{"ctx live, DeadlineExceeded from an inner timeout", live, context.DeadlineExceeded, false},
		{"ctx cancelled, Canceled", cancelled, context.Canceled, true},
		{"ctx cancelled, wrapped Canceled", cancelled, fmt.Errorf("get: %w", context.Canceled), true},
		{"ctx cancelled, future cancelled", cancelled, future.ErrCancelled, true},
		{"ctx cancelled, DeadlineExceeded", cancelled, context.DeadlineExceeded, true},
		{"ctx expired, DeadlineExceeded", expired, context.DeadlineExceeded, true},
		{"ctx cancelled, unrelated failure", cancelled, errCustom, false},
		{"ctx cancelled, call timeout", cancelled, policy.ErrCallTimeout, false},
	} {
		assert.Equal(t, tc.want, policy.CallerCancelled(tc.ctx, tc.err), tc.name)
	}
}
