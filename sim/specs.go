package sim

import (
	"math"

	"github.com/resilience4cata/r4c/policy/adaptivelimit"
)

// CandidateName is the report's name for the candidate algorithm.
const CandidateName = "r4c-little"

// Candidate is the candidate algorithm (candidate.go) with p, on this
// package's model of r4c's windowing, which gives the same figures as the
// library for Gradient2, AIMD and Vegas (TestLibraryMatchesReference). Once
// the library has the algorithm, R4C(<its Algorithm value>) replaces it.
func Candidate(p CandidateParams) Spec {
	return Reference(CandidateName, "candidate algorithm (sim/candidate.go) on r4c's windowing",
		func() Algorithm { return newCandidate(p) })
}

// Specs returns the limiters of the report, in the order of its tables.
func Specs() []Spec {
	return []Spec{
		Candidate(DefaultCandidateParams),
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
