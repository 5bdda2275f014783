// Package seam lets package pipeline reach the engine behind an
// r4c.Registry without making the engine part of r4c's API, the way
// grpc-go's internal package does: package r4c sets the variables in its
// init, and package pipeline, which imports r4c, calls them.
package seam

import "github.com/resilience4cata/r4c/internal/engine"

// Update runs fn in a transaction of reg's engine (reg is an
// *r4c.Registry) and returns its error as r4c returns errors: an
// *engine.Error becomes an *r4c.ConfigError, any other error passes
// unchanged. Set by package r4c.
var Update func(reg any, fn func(tx *engine.Tx) error) error
