//go:build !race

// The race detector allocates, so allocation counts are checked in
// builds without it (CI runs them in a step of their own).

package r4cslog_test

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/resilience4cata/r4c/events"
	r4cslog "github.com/resilience4cata/r4c/logging/slog"
)

func TestDisabledLevelsAllocateNothing(t *testing.T) {
	h := &countingHandler{level: slog.LevelInfo}
	l := r4cslog.Listener(slog.New(h))
	var rejected events.Event = events.CallRejected{Policy: "adaptivelimit", Instance: "search"}
	var retried events.Event = events.RetryAttempt{Instance: "flaky", Attempt: 2, Err: errBackend}
	var closed events.Event = events.BreakerStateChanged{Instance: "payments", From: "open", To: "half-open"}
	allocs := testing.AllocsPerRun(1000, func() {
		l(rejected)
		l(retried)
	})
	assert.Zero(t, allocs)
	assert.Zero(t, h.handled)
	allocs = testing.AllocsPerRun(1000, func() { l(closed) })
	assert.Zero(t, allocs, "an enabled record of five attributes or fewer")
	assert.Positive(t, h.handled)
}
