package adaptivelimit_test

import (
	"fmt"

	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// Capping a running adaptive limit: the limit is clamped at once, and
// crossing bounds move together with SetLimits.
func ExampleHandle_SetMaxLimit() {
	l, _ := adaptivelimit.New(adaptivelimit.Config{InitialLimit: 40, MaxLimit: 100}, policy.Env{})
	h := l.Handle()
	_ = h.SetMaxLimit(25)
	fmt.Println(h.Limit())
	fmt.Println(h.SetMinLimit(30))
	_ = h.SetLimits(30, 60)
	fmt.Println(h.Limit())
	// Output:
	// 25
	// minLimit=30: must not exceed maxLimit (25)
	// 30
}
