// Package collision declares names the generated code would import as.
package collision

import (
	"context"
	"time"
)

const timeout = time.Second

var pipeline = "mine"

type r4c struct{}

type Client interface {
	//r4c:timeout 2s
	//r4c:adaptiveLimit
	Call(context context.Context, timeout time.Duration, pipeline string, r4c int) (time.Duration, error)
}

var _ = r4c{}
