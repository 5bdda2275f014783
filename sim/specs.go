package sim

import (
	"math"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// LittleName is the report's name for the library's Little algorithm
// (R4C(adaptivelimit.Little)), the one designed here.
const LittleName = "r4c-little"

// Candidate is the design of Little (candidate.go) with p, on this
// package's model of r4c's windowing. The report runs the library's Little
// instead; with DefaultCandidateParams (the library's fixed tuning) the two
// give the same limits (TestLibraryMatchesReference), and other parameters
// can be tried here before changing the library.
func Candidate(p CandidateParams) Spec {
	return Reference("ref-little", "Little's design (sim/candidate.go), r4c windowing",
		func() Algorithm { return newCandidate(p) })
}

// Specs returns the limiters of the report, in the order of its tables.
func Specs() []Spec {
	return []Spec{
		R4C(adaptivelimit.Little),
		R4C(adaptivelimit.Gradient2),
		R4C(adaptivelimit.AIMD),
		R4C(adaptivelimit.Vegas),
		Failsafe(),
		GCLGradient2(),
		GCLAIMD(),
		Bulkhead("bulkhead-40", Capacity),
		Bulkhead("bulkhead-160", 4*Capacity),
	}
}

// RefGradient2, RefAIMD and RefVegas are the reference arithmetic of
// docs/netflix-algorithms.md on this package's model of r4c's windowing,
// kept to cross-check the library.
func RefGradient2() Spec {
	return Reference("ref-gradient2", "Gradient2 (reference arithmetic), r4c windowing",
		func() Algorithm { return newGradient2() })
}

// RefAIMD: see RefGradient2.
func RefAIMD() Spec {
	return Reference("ref-aimd", "AIMD (reference arithmetic), r4c windowing",
		func() Algorithm { return aimd{backoff: 0.9} })
}

// RefVegas: see RefGradient2. Its probe jitter follows the library's fixed
// schedule, 0.5 + 0.5·frac((k+1)·0.618...), instead of Netflix's random draw.
func RefVegas() Spec {
	return Reference("ref-vegas", "Vegas (reference arithmetic), r4c windowing",
		func() Algorithm {
			k := 0
			return newVegas(func() float64 {
				_, frac := math.Modf(float64(k+1) * 0.6180339887498949)
				k++
				return 0.5 + 0.5*frac
			})
		})
}
