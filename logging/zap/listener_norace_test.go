//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package r4czap_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/resilience4cata/r4c/events"
	r4czap "github.com/resilience4cata/r4c/logging/zap"
)

func TestDisabledLevelsAllocateNothing(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	l := r4czap.Listener(zap.New(core))
	var rejected events.Event = events.CallRejected{Policy: "adaptivelimit", Instance: "search"}
	var retried events.Event = events.RetryAttempt{Instance: "flaky", Attempt: 2, Err: errBackend}
	allocs := testing.AllocsPerRun(1000, func() {
		l(rejected)
		l(retried)
	})
	assert.Zero(t, allocs)
	assert.Zero(t, logs.Len())
}
