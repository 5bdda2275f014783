// Package unexported generates for an unexported interface, into a file
// named by -output.
package unexported

import "context"

//r4c:retry 2
type store interface {
	get(ctx context.Context, key string) (string, error)
	Put(ctx context.Context, key, value string) error
}
