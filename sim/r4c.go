package sim

import (
	"github.com/resilience4cata/r4c/policy"
	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// r4cLimiter adapts the library's *adaptivelimit.Limiter. A client timeout
// is reported as OutcomeDrop, as a timeout.ErrCallTimeout inside the limit
// would be classified by the default DropOn.
type r4cLimiter struct{ l *adaptivelimit.Limiter }

type r4cPermit struct {
	l *adaptivelimit.Limiter
	p adaptivelimit.Permit
}

func (p r4cPermit) Release(o Outcome) {
	if o == Dropped {
		p.l.Release(p.p, adaptivelimit.OutcomeDrop)
		return
	}
	p.l.Release(p.p, adaptivelimit.OutcomeSuccess)
}

func (r r4cLimiter) TryAcquire() (Permit, bool) {
	p, ok := r.l.TryAcquire()
	if !ok {
		return nil, false
	}
	return r4cPermit{r.l, p}, true
}

func (r r4cLimiter) Limit() int { return r.l.Handle().Limit() }

// R4C is the library's adaptive limit with alg at its defaults (limits
// 1/200/20, window 1 s and 10 samples), on policy.System: virtual time
// inside the simulation's bubble.
func R4C(alg adaptivelimit.Algorithm) Spec {
	return Spec{Name: "r4c-" + alg.String(), Note: "r4c adaptivelimit, " + alg.String() + ", defaults",
		New: func() Limiter {
			l, err := adaptivelimit.New(adaptivelimit.Config{Algorithm: alg}, policy.Env{Clock: policy.System})
			if err != nil {
				panic(err)
			}
			return r4cLimiter{l}
		}}
}
