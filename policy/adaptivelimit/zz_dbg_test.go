//go:build littledebug

package adaptivelimit_test

import (
	"fmt"
	"os"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

func init() {
	if os.Getenv("DBG") != "" {
		adaptivelimit.Debug = func(s string) { fmt.Println(s) }
	}
}
