package r4cprometheus_test

import "github.com/resilience4cata/r4c/metrics/internal/scenario"

// The scenario is shared with the other metrics module (see package
// scenario); these names keep this module's tests short.
var (
	errBackend  = scenario.ErrBackend
	newRegistry = scenario.NewRegistry
	build       = scenario.Build
	ok          = scenario.OK
	holdSlot    = scenario.HoldSlot
)
